// The problem+json error shape, the stable error codes every Ferry component shares, and the
// HTTP status of each code (the API document and the server both read it from here).
import { z } from 'zod';

/** Every code, with the HTTP status it is answered with. Codes are stable; add, never rename. */
export const ERROR_STATUS = {
  'bad-request': 400,
  'invalid-json': 400,
  'validation-failed': 400,
  unauthorized: 401,
  'invalid-credentials': 401,
  forbidden: 403,
  'region-not-in-plan': 403,
  'data-cap-reached': 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'request-timeout': 408,
  'device-limit': 409,
  'key-in-use': 409,
  'region-exists': 409,
  'node-not-registered': 409,
  'tunnel-limit': 409,
  'tunnel-exists': 409,
  'platform-unverified': 409,
  'payload-too-large': 413,
  'uri-too-long': 414,
  'unsupported-media-type': 415,
  'unsupported-content-encoding': 415,
  'expectation-failed': 417,
  'rate-limited': 429,
  'headers-too-large': 431,
  internal: 500,
  'no-node-available': 503,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Answers with these statuses always carry Retry-After (seconds). */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

export const FieldError = z.object({
  field: z.string().describe('Dotted path of the offending field; empty for the whole body.'),
  message: z.string(),
  allowed: z.array(z.string()).optional().describe('The accepted values, where the set is closed.'),
});
export type FieldError = z.infer<typeof FieldError>;

/** The members every problem has; a component's own extras are added by its contract. */
export const PROBLEM_FIELDS = {
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(ERROR_CODES),
  errors: z.array(FieldError).optional(),
};

export const Problem = z.object(PROBLEM_FIELDS).catchall(z.unknown());
export type Problem = z.infer<typeof Problem>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemType(code: ErrorCode): string {
  return `urn:ferry:problem:${code}`;
}
