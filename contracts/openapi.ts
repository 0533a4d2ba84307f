// Generates the OpenAPI 3.1 document of the control API from the route table's zod schemas:
// every status each route can answer with, the problem schema of each, required bodies, and
// the same constraints the server enforces.
import { z } from 'zod';
import { ControlProblem, regionChoicePattern } from './control-api.js';
import {
  API_PREFIXES,
  BODY_METHODS,
  controlRoutes,
  routeErrorCodes,
  type RouteDef,
} from './control-routes.js';
import {
  ERROR_STATUS,
  PROBLEM_CONTENT_TYPE,
  RETRY_AFTER_STATUSES,
  type ErrorCode,
} from './problem.js';
import { JSON_SCHEMA, VALUE_SET, caseInsensitivePattern, type ValueSetName } from './values.js';

type JsonSchema = Record<string, unknown>;

/** Named schemas (`.meta({id})`) land here and are referenced from everywhere else. */
type Components = Record<string, JsonSchema>;

/**
 * What only the running service knows: its regions, and the names of its streaming platforms
 * (ids and aliases). Without them, the static shapes stand.
 */
export interface ValueSets {
  regions: readonly { id: string; area: string }[];
  platforms?: readonly string[] | undefined;
}

function applyValueSet(schema: JsonSchema, name: ValueSetName, sets: ValueSets): void {
  if (name === 'platform') {
    if (!sets.platforms?.length) return;
    schema.pattern = caseInsensitivePattern(sets.platforms);
    schema.examples = [...sets.platforms];
  } else if (name === 'region-id') {
    schema.enum = sets.regions.map((r) => r.id);
    delete schema.pattern;
  } else {
    schema.pattern = regionChoicePattern(sets.regions);
    schema.examples = ['auto', ...sets.regions.map((r) => r.id)];
  }
}

function schemaOf(
  type: z.ZodType,
  io: 'input' | 'output',
  components: Components,
  sets: ValueSets | undefined,
): JsonSchema {
  const generated = z.toJSONSchema(type, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: 'inline',
    override: (ctx) => {
      const schema = ctx.jsonSchema as JsonSchema;
      const replacement = schema[JSON_SCHEMA] as JsonSchema | undefined;
      if (replacement) {
        const description = schema.description;
        for (const key of Object.keys(schema)) delete schema[key];
        Object.assign(schema, description === undefined ? {} : { description }, replacement);
      }
      const set = schema[VALUE_SET] as ValueSetName | undefined;
      if (set) {
        delete schema[VALUE_SET];
        if (sets) applyValueSet(schema, set, sets);
      }
    },
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
  // A named schema at the top comes back as a bare reference: keep its body in components.
  if (typeof rest.id === 'string') {
    const { id, ...body } = rest;
    components[id] = body;
    return { $ref: `#/components/schemas/${id}` };
  }
  return rest;
}

function parameters(def: RouteDef, components: Components, sets: ValueSets | undefined) {
  const out: JsonSchema[] = [];
  for (const [where, type] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    if (!type) continue;
    const schema = schemaOf(type, 'input', components, sets) as {
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

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request, JSON, or values; validation errors name each field',
  401: 'Missing or bad token, or wrong credentials',
  403: 'Not allowed by the plan',
  404: 'No such resource (or not this account’s)',
  405: 'Method not allowed; see Allow',
  408: 'The request was not complete in time',
  409: 'Conflicts with the current state',
  413: 'Body over the size cap',
  414: 'Path parameter too long',
  415: 'Body not JSON, or compressed (send it uncompressed)',
  417: 'Unsupported Expect',
  429: 'Rate limited; see Retry-After',
  431: 'Request headers too large',
  500: 'A bug on our side',
  503: 'No capacity right now, or shutting down; see Retry-After',
};

const RETRY_AFTER_HEADER = {
  description: 'Seconds to wait before trying again.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

function problemResponse(status: number, codes: ErrorCode[]): JsonSchema {
  const response: JsonSchema = {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.join(', ')}`,
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              properties: {
                status: { const: status },
                code: { enum: codes },
                type: { enum: codes.map((c) => `urn:ferry:problem:${c}`) },
              },
            },
          ],
        },
      },
    },
  };
  const headers: JsonSchema = {};
  if (RETRY_AFTER_STATUSES.includes(status)) headers['Retry-After'] = RETRY_AFTER_HEADER;
  if (status === 401)
    headers['WWW-Authenticate'] = {
      description: 'Bearer',
      required: true,
      schema: { type: 'string' },
    };
  if (Object.keys(headers).length) response.headers = headers;
  return response;
}

/** The error responses of a route, by status, each listing its codes. */
function errorResponses(def: RouteDef): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(def)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [String(status), problemResponse(status, codes)]),
  );
}

/** A body is required unless the route takes an empty one (`{}`), which a missing body means. */
export function bodyRequired(def: RouteDef): boolean {
  return def.body !== undefined && !def.body.safeParse({}).success;
}

export function buildOpenApiDocument(version: string, sets?: ValueSets): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Components = {};
  for (const [id, def] of Object.entries(controlRoutes) as [string, RouteDef][]) {
    const success: JsonSchema = { description: def.summary };
    if (def.response)
      success.content = {
        'application/json': { schema: schemaOf(def.response, 'output', components, sets) },
      };
    if (def.stream) success.content = { [def.stream]: { schema: { type: 'string' } } };
    const operation: JsonSchema = {
      operationId: id,
      summary: def.summary,
      parameters: parameters(def, components, sets),
      responses: { [String(def.status)]: success, ...errorResponses(def) },
    };
    if (def.auth !== 'none') operation.security = [{ [`${def.auth}Token`]: [] }];
    if (def.body) {
      operation.requestBody = {
        required: bodyRequired(def),
        content: {
          'application/json': { schema: schemaOf(def.body, 'input', components, sets) },
        },
      };
    } else if (BODY_METHODS.has(def.method)) {
      operation.description = 'Takes no body; one sent is read (and must be JSON) and ignored.';
    }
    const openApiPath = def.path.replace(/:([a-z_]+)/g, '{$1}');
    for (const prefix of API_PREFIXES) {
      const methods = (paths[prefix + openApiPath] ??= {});
      methods[def.method.toLowerCase()] =
        prefix === API_PREFIXES[0] ? operation : { ...operation, operationId: `${id}V1` };
    }
  }
  schemaOf(ControlProblem, 'output', components, sets);
  const bearer = (description: string) => ({ type: 'http', scheme: 'bearer', description });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ferry control-plane API',
      version,
      description:
        'Accounts, devices, regions, nodes, connect and status. Every route is served under /api/v1 and /v1. Errors are application/problem+json with a stable `code`; each operation lists every status and code it can answer with. A method a path does not have gets 405 with Allow. Request bodies are JSON, uncompressed (Content-Encoding other than identity: 415), and capped (413, decided from Content-Length before 100 Continue).',
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        deviceToken: bearer('A device token from POST /sessions'),
        nodeToken: bearer('A node token from POST /admin/nodes'),
        adminToken: bearer('The operator token from FERRY_ADMIN_TOKEN'),
      },
    },
  };
}
