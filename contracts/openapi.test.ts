// The generated OpenAPI document is valid OpenAPI 3.1 and covers every route on both prefixes.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.js';
import { controlRoutes } from './control-routes.js';

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument('test') as {
    openapi: string;
    paths: Record<string, Record<string, any>>;
  };

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route under /api/v1 and /v1 with its schemas', () => {
    for (const def of Object.values(controlRoutes)) {
      const p = def.path.replace(/:([a-z_]+)/g, '{$1}');
      for (const prefix of ['/api/v1', '/v1']) {
        const op = doc.paths[prefix + p]?.[def.method.toLowerCase()];
        expect(op, `${def.method} ${prefix}${p}`).toBeDefined();
        expect(op.responses[String(def.status)]).toBeDefined();
      }
    }
    const connect = doc.paths['/api/v1/connect']!.post;
    const body = connect.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.protocol.enum).toEqual(['wireguard', 'ferry']);
    expect(body.properties.encryption.enum).toEqual(['AES-256-GCM', 'ChaCha20-Poly1305']);
  });
});
