// Turns zod issues into the API's field errors, naming the allowed values where the set is closed.
import type { z } from 'zod';
import type { FieldError } from '../../contracts/index.js';
import { FerryError } from '../domain/errors.js';

export function fieldErrors(error: z.ZodError, where: 'body' | 'query' | 'path'): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ field: base ? `${base}.${key}` : key, message: `unknown field in ${where}` });
      }
      continue;
    }
    const field: FieldError = { field: base, message: issue.message };
    if (issue.code === 'invalid_value') field.allowed = issue.values.map(String);
    out.push(field);
  }
  return out;
}

export function parseOrProblem<T extends z.ZodType>(
  schema: T,
  input: unknown,
  where: 'body' | 'query' | 'path',
): { ok: true; value: z.output<T> } | { ok: false; error: FerryError } {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  const errors = fieldErrors(r.error, where);
  const names = errors.map((e) => e.field || where).join(', ');
  return {
    ok: false,
    error: new FerryError('validation-failed', `invalid ${where}: ${names}`, { errors }),
  };
}
