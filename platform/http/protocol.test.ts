// The route-table adapter on a tiny table of its own, over TCP as hostile clients speak it:
// every refusal is problem+json from the room's table (with the room's admit step first), 405
// with Allow, Fastify's and Node's own refusals, compressed bodies, Expect: 100-continue, bodies
// over the limit without a reset, a route's answer outside its schema, and shutting down.
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_STATUS, type RouteDef } from '../../contracts/index.js';
import { AllowedMethods, pathsOf } from './allowed-methods.js';
import { HttpProblem, type AnswerFor } from './http-problem.js';
import { installProtocol, serverOptions, type HttpProtocolOptions } from './protocol.js';
import { readParts } from './request-parts.js';
import { checkedAnswer, registerRouteTable, sendAnswer } from './route-table.js';
import { rawExchange, type RawResponse } from './testing/raw-http.js';

const BODY_LIMIT = 1024;
const PREFIX = '/api';

const ROUTES = {
  addThing: {
    method: 'POST',
    path: '/things',
    auth: 'none',
    summary: 'add',
    status: 201,
    body: z.strictObject({ name: z.string(), kind: z.enum(['a', 'b']) }),
    response: z.object({ name: z.string() }),
  },
  thing: {
    method: 'GET',
    path: '/things/:id',
    auth: 'none',
    summary: 'one',
    status: 200,
    params: z.object({ id: z.string() }),
    response: z.object({ id: z.string() }),
  },
  removeThing: {
    method: 'DELETE',
    path: '/things/:id',
    auth: 'none',
    summary: 'remove',
    status: 204,
    params: z.object({ id: z.string() }),
  },
  broken: {
    method: 'GET',
    path: '/broken',
    auth: 'none',
    summary: 'answers outside its schema',
    status: 200,
    response: z.object({ ok: z.boolean() }),
  },
  stream: {
    method: 'GET',
    path: '/stream',
    auth: 'none',
    summary: 'a stream',
    status: 200,
    stream: 'text/event-stream',
  },
} as const satisfies Record<string, RouteDef>;

/** A room's table of its own: titles it makes up, bugs it counts. */
function roomTable(bugs: { route: string | undefined; error: unknown }[]): AnswerFor {
  return (error, route) => {
    if (error instanceof HttpProblem) {
      const status = ERROR_STATUS[error.code];
      return {
        body: {
          type: `urn:test:${error.code}`,
          title: `title of ${error.code}`,
          status,
          detail: error.message,
          code: error.code,
          ...(error.errors ? { errors: error.errors } : {}),
        },
        headers: { ...error.headers },
      };
    }
    bugs.push({ route, error });
    return {
      body: {
        type: 'urn:test:internal',
        title: 'bug',
        status: 500,
        detail: 'a bug',
        code: 'internal',
      },
      headers: {},
    };
  };
}

function expectProblem(
  r: RawResponse | { status: number; headers: any; body: string },
  status: number,
  code: string,
) {
  expect(r.status, r.body).toBe(status);
  expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(r.body);
  expect(body).toMatchObject({ status, code, title: `title of ${code}`, type: `urn:test:${code}` });
  return body;
}

describe('the route-table adapter', () => {
  let app: FastifyInstance;
  let port: number;
  let closing = false;
  const bugs: { route: string | undefined; error: unknown }[] = [];
  const admitted: string[] = [];

  beforeAll(async () => {
    const options: HttpProtocolOptions = {
      bodyLimit: BODY_LIMIT,
      allowed: new AllowedMethods([PREFIX], pathsOf(ROUTES)),
      answerFor: roomTable(bugs),
      closing: () => closing,
      admit: (request) => {
        admitted.push(request.url);
        if (request.headers['x-refuse'] !== undefined)
          throw new HttpProblem('forbidden', 'this room refuses you', {
            headers: { 'x-why': 'test' },
          });
      },
    };
    app = Fastify(serverOptions(options));
    installProtocol(app, options);
    registerRouteTable(app, {
      prefix: PREFIX,
      routes: ROUTES,
      answerFor: options.answerFor,
      bodyLimit: BODY_LIMIT,
      serve: async (id, def, request, reply) => {
        const parts = readParts(def, request, { undeclared: 'refuse' });
        if (def.stream) {
          reply.hijack();
          reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
          reply.raw.end(': hello\n\n');
          return;
        }
        const values: Record<string, () => unknown> = {
          addThing: () => ({ name: (parts.body as { name: string }).name, extra: 'dropped' }),
          thing: () => ({ id: (parts.params as { id: string }).id }),
          removeThing: () => undefined,
          broken: () => ({ ok: 'yes' }),
        };
        sendAnswer(reply, def, checkedAnswer(id, def, values[id]!()));
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => app?.close());

  const raw = (head: string, opts?: Parameters<typeof rawExchange>[2]) =>
    rawExchange(port, head, opts);
  const call = async (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      body: init.body,
      headers: init.headers,
    });
    return { status: r.status, headers: Object.fromEntries(r.headers), body: await r.text() };
  };
  const json = { 'content-type': 'application/json' };

  it('serves the table: parts through their schemas, the answer through its own', async () => {
    const added = await call('POST', '/api/things', {
      body: '{"name":"x","kind":"a"}',
      headers: json,
    });
    expect(added.status).toBe(201);
    // The answer as its schema reads it: what the schema does not know is not sent.
    expect(JSON.parse(added.body)).toEqual({ name: 'x' });
    expect(JSON.parse((await call('GET', '/api/things/t1')).body)).toEqual({ id: 't1' });
    const head = await call('HEAD', '/api/things/t1');
    expect(head.status).toBe(200);
    const removed = await call('DELETE', '/api/things/t1');
    expect([removed.status, removed.body]).toEqual([204, '']);
    expect((await call('GET', '/api/stream')).body).toBe(': hello\n\n');
  });

  it('answers 405 with Allow to a method a known path does not have, 404 to an unknown path', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/api/things', 'POST'],
      ['POST', '/api/things/t1', 'DELETE, GET, HEAD'],
      ['HEAD', '/api/stream', 'GET'],
    ] as const) {
      const r = await call(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.allow).toBe(allow);
      if (method !== 'HEAD') expectProblem(r, 405, 'method-not-allowed');
    }
    // Methods Fastify does not route and methods Node cannot parse: the same answer.
    for (const method of ['TRACE', 'QUERY', 'FOO']) {
      const { responses } = await raw(
        `${method} /api/things HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
      expect(responses[0]?.headers.allow, method).toBe('POST');
      expectProblem(responses[0]!, 405, 'method-not-allowed');
    }
    const unknown = expectProblem(await call('GET', '/api/nope?secret=1'), 404, 'not-found');
    expect(unknown.detail).toBe('no route GET /api/nope');
    expectProblem(await call('GET', '/things'), 404, 'not-found');
  });

  it('runs the room’s admit step first, on unknown paths too, with its headers', async () => {
    for (const path of ['/api/things/t1', '/api/nope']) {
      const r = await call('GET', path, { headers: { 'x-refuse': '1' } });
      expectProblem(r, 403, 'forbidden');
      expect(r.headers['x-why']).toBe('test');
    }
    expect(admitted).toContain('/api/nope');
  });

  it('refuses bodies that are not JSON, of no type, null, or outside the schema, naming the fields', async () => {
    expectProblem(
      await call('POST', '/api/things', { body: '{"name":', headers: json }),
      400,
      'invalid-json',
    );
    expectProblem(await call('POST', '/api/things', { body: '{}' }), 415, 'unsupported-media-type');
    expectProblem(
      await call('POST', '/api/things', { body: 'null', headers: json }),
      400,
      'validation-failed',
    );
    const bad = expectProblem(
      await call('POST', '/api/things', {
        body: '{"name":"x","kind":"c","colour":"red"}',
        headers: json,
      }),
      400,
      'validation-failed',
    );
    expect(bad.detail).toBe('invalid body: kind, colour');
    expect(bad.errors).toEqual([
      { field: 'kind', message: 'must be one of a, b', allowed: ['a', 'b'] },
      {
        field: 'colour',
        message: 'unknown field in the body; the fields are name, kind',
        allowed: ['name', 'kind'],
      },
    ]);
    expect(JSON.stringify(bad)).not.toContain('red');
    // A part the route takes nothing in is refused here (this room's choice).
    const query = expectProblem(
      await call('GET', '/api/things/t1?verbose=1'),
      400,
      'validation-failed',
    );
    expect(query.errors).toEqual([{ field: 'verbose', message: 'unknown field in the query' }]);
  });

  it('answers what Fastify and Node refuse with problem+json, echoing nothing', async () => {
    const long = 'a'.repeat(150);
    const tooLong = expectProblem(await call('GET', `/api/things/${long}`), 414, 'uri-too-long');
    expect(JSON.stringify(tooLong)).not.toContain(long);
    expectProblem(await call('GET', '/api/things/%zz'), 400, 'bad-request');
    const cases: [string, number, string][] = [
      ['GET /api/things/t HTTP/1.1\r\nhost: x\r\nbad header: y\r\n\r\n', 400, 'bad-request'],
      [
        `GET /api/things/t HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers-too-large',
      ],
      [
        'GET /api/things/t HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\n\r\n',
        417,
        'expectation-failed',
      ],
    ];
    for (const [head, status, code] of cases) {
      const { responses, ended } = await raw(head);
      expect(responses, head.slice(0, 40)).toHaveLength(1);
      expectProblem(responses[0]!, status, code);
      expect(ended).toBe('fin');
    }
  });

  it('refuses a body in an encoding it does not decode', async () => {
    const r = await call('POST', '/api/things', {
      body: gzipSync('{"name":"x","kind":"a"}') as unknown as string,
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    expectProblem(r, 415, 'unsupported-content-encoding');
    expect(r.headers['accept-encoding']).toBe('identity');
    const plain = await call('POST', '/api/things', {
      body: '{"name":"x","kind":"a"}',
      headers: { ...json, 'content-encoding': 'identity' },
    });
    expect(plain.status).toBe(201);
  });

  it('decides Expect: 100-continue from Content-Length, and closes without a reset under a 413', async () => {
    const head = (length: number, extra = '') =>
      `POST /api/things HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${extra}content-length: ${length}\r\n\r\n`;
    const over = await raw(head(BODY_LIMIT + 1, 'expect: 100-continue\r\n'));
    expect(over.responses.map((r) => r.status)).toEqual([413]);
    expect(expectProblem(over.responses[0]!, 413, 'payload-too-large').detail).toBe(
      `request bodies are limited to ${BODY_LIMIT} bytes`,
    );
    expect(over.responses[0]!.headers.connection).toBe('close');
    expect(over.ended).toBe('fin');

    const body = '{"name":"x","kind":"b"}';
    const within = await raw(head(body.length, 'expect: 100-continue\r\nconnection: close\r\n'), {
      body: Buffer.from(body),
    });
    expect(within.responses.map((r) => r.status)).toEqual([100, 201]);

    // An upload that goes on after the answer is drained, not reset.
    const big = Buffer.alloc(1024 * 1024, 'a');
    const upload = await raw(head(big.length), {
      body: big,
      chunk: 16 * 1024,
      pauseMs: 1,
      waitMs: 5_000,
    });
    expect(upload.responses.map((r) => r.status)).toEqual([413]);
    expect(upload.ended).toBe('fin');
  });

  it('answers a route’s answer outside its schema as the room’s bug, named by route', async () => {
    bugs.length = 0;
    const r = await call('GET', '/api/broken');
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'internal' });
    expect(r.body).not.toContain('yes');
    expect(bugs.map((b) => b.route)).toEqual(['broken']);
  });

  it('closes every answer’s connection once the room is closing', async () => {
    const open = await raw('GET /api/things/t1 HTTP/1.1\r\nhost: x\r\n\r\n', { waitMs: 300 });
    expect(open.responses[0]!.headers.connection).toBe('keep-alive');
    expect(open.ended).toBe('timeout');
    closing = true;
    try {
      const r = await raw('GET /api/things/t1 HTTP/1.1\r\nhost: x\r\n\r\n');
      expect(r.responses.map((x) => [x.status, x.headers.connection])).toEqual([[200, 'close']]);
      expect(r.ended).toBe('fin');
    } finally {
      closing = false;
    }
  });
});
