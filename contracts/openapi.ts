// Generates the OpenAPI 3.1 document of the control API from the route table's zod schemas.
import { z } from 'zod';
import { API_PREFIXES, controlRoutes, type RouteDef } from './control-routes.js';
import { PROBLEM_CONTENT_TYPE, Problem } from './problem.js';

type JsonSchema = Record<string, unknown>;

/** Named schemas (`.meta({id})`) land here and are referenced from everywhere else. */
type Components = Record<string, JsonSchema>;

function schemaOf(type: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const generated = z.toJSONSchema(type, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: 'inline',
  });
  // zod refers to named schemas inside the schema itself; in OpenAPI they live in components.
  const relinked = JSON.parse(
    JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/'),
  );
  const { $schema: _ignored, $defs, ...rest } = relinked as JsonSchema & { $defs?: Components };
  for (const [id, schema] of Object.entries($defs ?? {})) {
    const { id: _id, ...body } = schema;
    components[id] = body;
  }
  return rest;
}

function parameters(def: RouteDef, components: Components): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, type] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    if (!type) continue;
    const schema = schemaOf(type, 'input', components) as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        schema: prop,
      });
    }
  }
  return out;
}

function problemResponse(description: string): JsonSchema {
  return {
    description,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

export function buildOpenApiDocument(version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Components = {};
  for (const [id, def] of Object.entries(controlRoutes) as [string, RouteDef][]) {
    const success: JsonSchema = { description: def.summary };
    if (def.response)
      success.content = {
        'application/json': { schema: schemaOf(def.response, 'output', components) },
      };
    if (def.stream) success.content = { [def.stream]: { schema: { type: 'string' } } };
    const operation: JsonSchema = {
      operationId: id,
      summary: def.summary,
      parameters: parameters(def, components),
      responses: {
        [String(def.status)]: success,
        '400': problemResponse('Malformed JSON, unknown fields or wrong values'),
        '413': problemResponse('Body over the size cap'),
        '429': problemResponse('Rate limited; see Retry-After'),
        ...(def.auth === 'none' ? {} : { '401': problemResponse('Missing or bad token') }),
      },
    };
    if (def.auth !== 'none') operation.security = [{ [`${def.auth}Token`]: [] }];
    if (def.body) {
      operation.requestBody = {
        required: false,
        content: { 'application/json': { schema: schemaOf(def.body, 'input', components) } },
      };
    }
    const openApiPath = def.path.replace(/:([a-z_]+)/g, '{$1}');
    for (const prefix of API_PREFIXES) {
      const methods = (paths[prefix + openApiPath] ??= {});
      methods[def.method.toLowerCase()] =
        prefix === API_PREFIXES[0] ? operation : { ...operation, operationId: `${id}V1` };
    }
  }
  const bearer = (description: string) => ({ type: 'http', scheme: 'bearer', description });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ferry control-plane API',
      version,
      description:
        'Accounts, devices, regions, nodes, connect and status. Every route is served under /api/v1 and /v1.',
    },
    paths,
    components: {
      schemas: { ...components, Problem: schemaOf(Problem, 'output', components) },
      securitySchemes: {
        deviceToken: bearer('A device token from POST /sessions'),
        nodeToken: bearer('A node token from POST /admin/nodes'),
        adminToken: bearer('The operator token from FERRY_ADMIN_TOKEN'),
      },
    },
  };
}
