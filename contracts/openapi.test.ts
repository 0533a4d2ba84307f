// The generated OpenAPI document is valid OpenAPI 3.1, its schemas compile, and it says what the
// server does: every route on both prefixes, every status with the problem schema, required
// bodies, and the constraints of the zod schemas.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.js';
import { controlRoutes, routeErrorCodes } from './control-routes.js';
import { ERROR_STATUS } from './problem.js';
import { LOW_ORDER_PUBLIC_KEYS } from './values.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

const REGIONS = [
  { id: 'global', area: 'global' },
  { id: 'asia-east', area: 'asia' },
];

function validatorFor(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: doc.components });
  return (schema: unknown) =>
    ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')),
    );
}

/** A node as GET /nodes lists it, with the fields every version has. */
const NODE = {
  id: 'n',
  region: 'global',
  endpoint_host: 'h',
  wireguard_port: 1,
  ferry_port: null,
  wireguard_public_key: null,
  ferry_public_key: null,
  load: 0,
  capacity_mbps: 1,
  healthy: true,
  probe: null,
};

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument('test', {
    regions: REGIONS,
    platforms: ['netflix', 'disney+', 'disney-plus'],
  }) as Doc;
  const compile = validatorFor(doc);
  const op = (method: string, path: string) => doc.paths[`/api/v1${path}`]![method]!;
  const body = (method: string, path: string) =>
    compile(op(method, path).requestBody.content['application/json'].schema);

  it('validates as OpenAPI 3.1, with and without the running service’s regions', async () => {
    for (const d of [doc, buildOpenApiDocument('test')]) {
      const validator = new Validator();
      const result = await validator.validate(d as Parameters<Validator['validate']>[0]);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    }
  });

  it('defines the problem schema once, as an object, and every schema compiles', () => {
    const problem = doc.components.schemas.Problem;
    expect(problem.$ref).toBeUndefined();
    expect(problem.type).toBe('object');
    expect(problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']),
    );
    const check = compile({ $ref: '#/components/schemas/Problem' });
    expect(
      check({
        type: 'urn:ferry:problem:not-found',
        title: 'Not found',
        status: 404,
        detail: 'x',
        code: 'not-found',
      }),
    ).toBe(true);
    expect(check({ title: 'Not found', status: 404, detail: 'x', code: 'not-found' })).toBe(false);
    expect(check({ error: 'Bad Request', statusCode: 414, message: 'x' })).toBe(false);
    for (const methods of Object.values(doc.paths))
      for (const operation of Object.values(methods))
        for (const response of Object.values(operation.responses as Record<string, any>))
          for (const media of Object.values((response.content ?? {}) as Record<string, any>))
            expect(() => compile(media.schema)).not.toThrow();
  });

  it('lists every route under /api/v1 and /v1 with every status and code it can answer with', () => {
    for (const def of Object.values(controlRoutes)) {
      const p = def.path.replace(/:([a-z_]+)/g, '{$1}');
      for (const prefix of ['/api/v1', '/v1']) {
        const operation = doc.paths[prefix + p]?.[def.method.toLowerCase()];
        expect(operation, `${def.method} ${prefix}${p}`).toBeDefined();
        expect(operation.responses[String(def.status)]).toBeDefined();
        for (const code of routeErrorCodes(def)) {
          const response = operation.responses[String(ERROR_STATUS[code])];
          expect(response, `${def.method} ${p} ${code}`).toBeDefined();
          const schema = response.content['application/problem+json'].schema;
          expect(schema.allOf[1].properties.code.enum).toContain(code);
        }
      }
    }
    // What the Schemathesis run found answered but undocumented.
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses);
    expect(statuses('get', '/devices/{id}')).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '414', '429', '431', '503']),
    );
    expect(statuses('post', '/connect')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '413', '415', '429', '503']),
    );
    expect(statuses('post', '/sessions')).toEqual(expect.arrayContaining(['201', '401', '409']));
    expect(statuses('post', '/node/register')).toContain('409');
    for (const status of ['429', '503'])
      expect(op('post', '/connect').responses[status].headers['Retry-After'].required).toBe(true);
    expect(op('get', '/status').responses['401'].headers['WWW-Authenticate']).toBeDefined();
  });

  it('documents stream mode: the platforms connect takes, its refusals, and the nodes’ checks', () => {
    const connect = body('post', '/connect');
    expect(connect({ usage: 'Streaming', platform: 'Netflix', region: 'asia-east' })).toBe(true);
    expect(connect({ platform: 'DISNEY+' })).toBe(true);
    expect(connect({ platform: 'myspace' })).toBe(false);
    expect(connect({ usage: 'remote-work', platform: 'netflix' })).toBe(false);
    expect(connect({ usage: 'general', platform: 'netflix' })).toBe(false);
    // Without the running service's platforms, the shape of a name stands.
    const bare = validatorFor(buildOpenApiDocument('test') as Doc)(
      (buildOpenApiDocument('test') as Doc).paths['/api/v1/connect']!.post.requestBody.content[
        'application/json'
      ].schema,
    );
    expect(bare({ platform: 'myspace', usage: 'streaming' })).toBe(true);
    expect(bare({ platform: '../etc', usage: 'streaming' })).toBe(false);

    const refusal = op('post', '/connect').responses['409'];
    expect(
      refusal.content['application/problem+json'].schema.allOf[1].properties.code.enum,
    ).toEqual(['platform-unverified']);
    const problem = compile({ $ref: '#/components/schemas/Problem' });
    expect(
      problem({
        type: 'urn:ferry:problem:platform-unverified',
        title: 'No node verified for the platform',
        status: 409,
        detail: 'x',
        code: 'platform-unverified',
        platform: 'netflix',
        verified_regions: ['global'],
      }),
    ).toBe(true);

    const heartbeat = body('post', '/node/heartbeat');
    const result = {
      platform: 'netflix',
      reachable: true,
      region: 'JP',
      verdict: 'ok',
      checked_at: 1,
    };
    expect(heartbeat({ load: 0, rx_bps: 0, tx_bps: 0, platforms: [result] })).toBe(true);
    expect(
      heartbeat({ load: 0, rx_bps: 0, tx_bps: 0, platforms: [{ ...result, verdict: 'great' }] }),
    ).toBe(false);
    expect(
      heartbeat({ load: 0, rx_bps: 0, tx_bps: 0, platforms: [{ ...result, region: 'jp' }] }),
    ).toBe(false);
    const answer = compile(
      op('post', '/node/heartbeat').responses['200'].content['application/json'].schema,
    );
    expect(answer({ feed_version: 1, healthy_for_seconds: 30, check_platforms: true })).toBe(true);

    const node = compile({ $ref: '#/components/schemas/Node' });
    const base = NODE;
    const check = { platform: 'netflix', verified: true, verdict: 'ok', region: 'JP' };
    expect(node({ ...base, platforms: [{ ...check, checked_age_seconds: 12 }] })).toBe(true);
    expect(node({ ...base, platforms: [check] })).toBe(false);

    const ask = op('post', '/admin/nodes/{id}/check-platforms');
    expect(Object.keys(ask.responses)).toEqual(expect.arrayContaining(['202', '401', '404']));
    expect(ask.security).toEqual([{ adminToken: [] }]);
  });

  it('documents the TLS transport: a relay registers a port with a name, nodes show both', () => {
    const register = body('post', '/node/register');
    const keys = { wireguard_public_key: 'wRfZXmeEIJJeI02VJ5Lo6h/ZQCEOWShKjBki4T4gS2g=' };
    expect(register(keys)).toBe(true);
    expect(register({ ...keys, tls_port: null, tls_server_name: null })).toBe(true);
    expect(register({ ...keys, tls_port: 443, tls_server_name: 'www.cover.test' })).toBe(true);
    expect(register({ ...keys, tls_port: 443 })).toBe(false);
    expect(register({ ...keys, tls_port: 443, tls_server_name: null })).toBe(false);
    expect(register({ ...keys, tls_server_name: 'cover.test' })).toBe(false);
    expect(register({ ...keys, tls_port: null, tls_server_name: 'cover.test' })).toBe(false);
    expect(register({ ...keys, tls_port: 443, tls_server_name: '192.0.2.1' })).toBe(false);
    expect(register({ ...keys, tls_port: 70000, tls_server_name: 'cover.test' })).toBe(false);

    const node = compile({ $ref: '#/components/schemas/Node' });
    const base = { ...NODE, ferry_port: 2 };
    expect(node({ ...base, tls_port: 443, tls_server_name: 'cover.test' })).toBe(true);
    expect(node({ ...base, tls_port: null, tls_server_name: null })).toBe(true);
    expect(node({ ...base, tls_port: '443', tls_server_name: null })).toBe(false);
    const connected = op('post', '/connect').responses['200'].content['application/json'].schema;
    const connectNode = compile(connected.properties.node);
    const answered = {
      id: 'n',
      region: 'global',
      endpoint_host: 'h',
      wireguard_port: 1,
      wireguard_public_key: 'k',
      ferry_port: 2,
      ferry_public_key: 'f',
    };
    expect(connectNode({ ...answered, tls_port: 443, tls_server_name: 'cover.test' })).toBe(true);
    expect(connectNode({ ...answered, tls_port: null, tls_server_name: null })).toBe(true);
    expect(connectNode({ ...answered, tls_port: 443, tls_server_name: 7 })).toBe(false);
  });

  it('marks a body required where an empty one is refused', () => {
    expect(op('post', '/sessions').requestBody.required).toBe(true);
    expect(op('put', '/devices/{id}/keys').requestBody.required).toBe(true);
    expect(op('patch', '/devices/{id}').requestBody.required).toBe(true);
    expect(op('put', '/admin/accounts/{number}/plan').requestBody.required).toBe(true);
    expect(op('post', '/node/register').requestBody.required).toBe(true);
    expect(op('post', '/connect').requestBody.required).toBe(false);
    expect(op('post', '/accounts').requestBody.required).toBe(false);
  });

  it('holds the constraints the server enforces', () => {
    const key = 'wRfZXmeEIJJeI02VJ5Lo6h/ZQCEOWShKjBki4T4gS2g=';
    const other = 'NqlaiN9tsDM+/f179TJLy37T3Ks7KIwmhd8eo/+c4Fc=';
    const session = body('post', '/sessions');
    const device = {
      name: 'my laptop',
      kind: 'Laptop',
      wireguard_public_key: key,
      ferry_public_key: other,
    };
    expect(session({ account_number: '9002 2062-7102 2107', device })).toBe(true);
    expect(session({ account_number: '900220627102210', device })).toBe(false);
    expect(session({ account_number: 'abcd', device })).toBe(false);
    expect(session(null)).toBe(false);
    for (const low of LOW_ORDER_PUBLIC_KEYS)
      expect(
        session({
          account_number: '9002206271022107',
          device: { ...device, ferry_public_key: low },
        }),
      ).toBe(false);
    for (const name of [
      'x\u2028DNS = 9.9.9.9\u2028#',
      'a\u0000',
      'esc\u001b[31m',
      'a\u202eb',
      'a\u0085b',
      '   ',
      '',
    ])
      expect(
        session({ account_number: '9002206271022107', device: { ...device, name } }),
        JSON.stringify(name),
      ).toBe(false);
    expect(
      session({ account_number: '9002206271022107', device: { ...device, name: '  Zoë’s 📱 ' } }),
    ).toBe(true);

    const rotate = body('put', '/devices/{id}/keys');
    expect(rotate({})).toBe(false);
    expect(rotate({ ferry_public_key: other })).toBe(true);

    const plan = body('put', '/admin/accounts/{number}/plan');
    expect(plan({ plan: 'Premium' })).toBe(true);
    expect(plan({ plan: 'platinum' })).toBe(false);

    const connect = body('post', '/connect');
    expect(
      connect({
        encryption: 'AES-256-GCM',
        protocol: 'WireGuard',
        region: 'auto',
        usage: 'remote-work',
      }),
    ).toBe(true);
    expect(connect({ region: 'Asia:least-load' })).toBe(true);
    expect(connect({ region: 'mars-north' })).toBe(false);
    expect(connect({ protocol: 'openvpn' })).toBe(false);
    expect(connect(null)).toBe(false);
    expect(
      body(
        'post',
        '/admin/nodes',
      )({ region: 'eu-west', endpoint_host: 'h', wireguard_port: 1, capacity_mbps: 1 }),
    ).toBe(false);
  });
});
