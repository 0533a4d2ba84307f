// A request's parts (path parameters, query, body) through its route's schemas, and zod's
// failures as field errors: each offending field, what it takes, and the allowed values wherever
// the set is closed. Never the value that was sent.
import { z } from 'zod';
import type { FieldError, RouteDef } from '../../contracts/index.js';
import { HttpProblem } from './http-problem.js';

export type RequestPart = 'body' | 'query' | 'path';

/** A room's own words for one schema's failures (undefined: the words below). */
export type OwnFieldWords = (
  schema: z.ZodType,
  error: z.ZodError,
  where: RequestPart,
) => FieldError[] | undefined;

export interface PartOptions {
  /**
   * What a part the route has no schema for does with input: `refuse` it (400, every member
   * named), or `ignore` it (the control plane's long-standing answer to a stray query).
   */
  undeclared: 'refuse' | 'ignore';
  ownWords?: OwnFieldWords;
}

/** The members an object schema knows (for "unknown field" errors), or none. */
function knownKeys(schema: z.ZodType): string[] | undefined {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
}

export function fieldErrors(
  schema: z.ZodType,
  error: z.ZodError,
  where: RequestPart,
): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const known = base === '' ? knownKeys(schema) : undefined;
      for (const key of issue.keys) {
        out.push({
          field: base ? `${base}.${key}` : key,
          message: known
            ? `unknown field in the ${where}; the fields are ${known.join(', ') || 'none'}`
            : `unknown field in the ${where}`,
          ...(known ? { allowed: known } : {}),
        });
      }
      continue;
    }
    if (issue.code === 'invalid_value') {
      const allowed = issue.values.map(String);
      out.push({ field: base, message: `must be one of ${allowed.join(', ')}`, allowed });
      continue;
    }
    out.push({ field: base, message: issue.message });
  }
  return out;
}

function isEmpty(input: unknown): boolean {
  return (
    input === undefined ||
    (typeof input === 'object' && input !== null && Object.keys(input).length === 0)
  );
}

/** One request part through its route's schema; throws `validation-failed` with field errors. */
export function parsePart(
  schema: z.ZodType | undefined,
  input: unknown,
  where: RequestPart,
  options: PartOptions,
): unknown {
  if (!schema) {
    if (options.undeclared === 'ignore' || isEmpty(input)) return undefined;
    const names = typeof input === 'object' && input !== null ? Object.keys(input) : [''];
    throw new HttpProblem('validation-failed', `this route takes no ${where}`, {
      errors: names.map((field) => ({ field, message: `unknown field in the ${where}` })),
    });
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const errors =
    options.ownWords?.(schema, parsed.error, where) ?? fieldErrors(schema, parsed.error, where);
  const names = [...new Set(errors.map((e) => e.field || where))].join(', ');
  throw new HttpProblem('validation-failed', `invalid ${where}: ${names}`, { errors });
}

export interface RequestParts {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * The three parts of a call through the route's schemas, in that order. No body at all is an
 * empty one where the route takes a body; a JSON `null` is not (the schema refuses it).
 */
export function readParts(def: RouteDef, input: RequestParts, options: PartOptions): RequestParts {
  return {
    params: parsePart(def.params, input.params, 'path', options),
    query: parsePart(def.query, input.query, 'query', options),
    body: parsePart(
      def.body,
      def.body && input.body === undefined ? {} : input.body,
      'body',
      options,
    ),
  };
}
