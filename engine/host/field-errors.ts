// A request's zod failures as the local API's field errors: each offending field, what it
// takes, and the allowed values wherever the set is closed. Never the value that was sent.
import { z } from 'zod';
import { ClientConfigPatch, configFieldErrors, type FieldError } from '../../contracts/index.js';

export type RequestPart = 'body' | 'query' | 'path';

/** The members an object schema knows (for "unknown field" errors), or none. */
function knownKeys(schema: z.ZodType): string[] | undefined {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
}

export function fieldErrors(
  schema: z.ZodType,
  error: z.ZodError,
  where: RequestPart,
): FieldError[] {
  // The configuration's keys have their own words (what each takes, booleans as true/false).
  if (schema === ClientConfigPatch) return configFieldErrors(error);
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
