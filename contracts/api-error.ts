// The one error a client of our HTTP APIs throws: the server's problem+json refusal, or what
// went wrong before there was one (no connection, too slow, cancelled, an answer we cannot read).
import { z } from 'zod';
import { FieldError, type ErrorCode } from './problem.js';

/** What a client reports when the server gave no problem of its own. */
export const CLIENT_ERROR_CODES = [
  /** No answer: the connection failed or broke (DNS, refused, reset). */
  'unreachable',
  /** The server's TLS certificate is not trusted (unknown CA, expired, another name): no call was made. */
  'untrusted-certificate',
  /** No whole answer within the call's timeout. */
  'timeout',
  /** The caller cancelled the call (its AbortSignal). */
  'aborted',
  /** An answer that is not what the route's contract says (schema, JSON, content type). */
  'bad-response',
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * A server's own code, one a client found, or a code this build does not know yet (codes are
 * added over time: an older client keeps the newer server's code and detail).
 */
export type ApiErrorCode = ErrorCode | ClientErrorCode | (string & {});

export interface ApiErrorInit {
  code: ApiErrorCode;
  /** A user-safe explanation (the server's `detail`, or the client's own). */
  detail: string;
  /** `METHOD /path/template` of the call: never the filled-in path (ids, account numbers). */
  route: string;
  status?: number | undefined;
  errors?: FieldError[] | undefined;
  problem?: Readonly<Record<string, unknown>> | undefined;
  retryAfterSeconds?: number | undefined;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly detail: string;
  readonly route: string;
  /** The HTTP status when the server answered; undefined for unreachable, timeout, aborted. */
  readonly status: number | undefined;
  /** Validation errors: each offending field (and the allowed values when the set is closed). */
  readonly errors: FieldError[] | undefined;
  /** The whole problem body, with the members some codes add (e.g. device-limit's devices). */
  readonly problem: Readonly<Record<string, unknown>> | undefined;
  /** From Retry-After on 429 and 503: when trying again makes sense. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: ApiErrorInit) {
    const status = init.status === undefined ? '' : `${init.status} `;
    super(
      `${init.route}: ${status}${init.code}: ${init.detail}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'ApiError';
    this.code = init.code;
    this.detail = init.detail;
    this.route = init.route;
    this.status = init.status;
    this.errors = init.errors;
    this.problem = init.problem;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * The members of a problem a client relies on, leniently: a code this build does not know is
 * still the server's code, and a malformed `errors` list does not hide the code and detail.
 */
const ProblemBody = z.looseObject({
  code: z.string().min(1),
  detail: z.string(),
  errors: z.unknown().optional(),
});

/**
 * The error for a non-2xx answer: the server's problem when the body is one, otherwise a
 * `bad-response` that keeps the status (a proxy's 502 page, say).
 */
export function errorFromAnswer(
  route: string,
  status: number,
  headers: { get(name: string): string | null },
  body: string,
): ApiError {
  const retryAfter = headers.get('retry-after');
  const retryAfterSeconds =
    retryAfter !== null && /^\d{1,9}$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const problem = ProblemBody.safeParse(json);
  if (!problem.success) {
    return new ApiError({
      code: 'bad-response',
      detail: `the server answered ${status} without a problem description`,
      route,
      status,
      retryAfterSeconds,
    });
  }
  const errors = z.array(FieldError).safeParse(problem.data.errors);
  return new ApiError({
    code: problem.data.code,
    detail: problem.data.detail,
    route,
    status,
    errors: errors.success ? errors.data : undefined,
    problem: problem.data,
    retryAfterSeconds,
  });
}
