// The problem+json error shape and the stable error codes every Ferry component shares.
import { z } from 'zod';

export const ERROR_CODES = [
  'invalid-json',
  'validation-failed',
  'unsupported-media-type',
  'payload-too-large',
  'unauthorized',
  'invalid-credentials',
  'forbidden',
  'region-not-in-plan',
  'data-cap-reached',
  'not-found',
  'method-not-allowed',
  'device-limit',
  'key-in-use',
  'region-exists',
  'node-not-registered',
  'no-node-available',
  'rate-limited',
  'unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const FieldError = z.object({
  field: z.string().describe('Dotted path of the offending field; empty for the whole body.'),
  message: z.string(),
  allowed: z.array(z.string()).optional().describe('The accepted values, where the set is closed.'),
});
export type FieldError = z.infer<typeof FieldError>;

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(ERROR_CODES),
    errors: z.array(FieldError).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof Problem>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemType(code: ErrorCode): string {
  return `urn:ferry:problem:${code}`;
}
