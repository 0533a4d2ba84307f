// The control plane's one table from error codes to HTTP answers: each code's status and title,
// and the headers its answers carry (WWW-Authenticate, Retry-After).
import type { Logger } from 'pino';
import {
  ERROR_STATUS,
  RETRY_AFTER_STATUSES,
  problemType,
  type ControlProblem,
  type ErrorCode,
  type FieldError,
} from '../../contracts/index.js';
import { HttpProblem, type AnswerFor } from '../../platform/http/http-problem.js';
import { FerryError } from '../domain/errors.js';

const TITLE_OF: Record<ErrorCode, string> = {
  'bad-request': 'Malformed request',
  'invalid-json': 'Malformed JSON',
  'validation-failed': 'Invalid request',
  unauthorized: 'Not authenticated',
  'invalid-credentials': 'Wrong account number or password',
  forbidden: 'Not allowed',
  'region-not-in-plan': 'Region not in your plan',
  'data-cap-reached': 'Monthly data used up',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  'request-timeout': 'Request timed out',
  'device-limit': 'Device limit reached',
  'key-in-use': 'Public key already in use',
  'region-exists': 'Region exists',
  'node-not-registered': 'Node not registered',
  'tunnel-limit': 'Tunnel limit reached',
  'tunnel-exists': 'Tunnel exists',
  'platform-unverified': 'No node verified for the platform',
  'payload-too-large': 'Request body too large',
  'uri-too-long': 'Path too long',
  'unsupported-media-type': 'Unsupported media type',
  'unsupported-content-encoding': 'Unsupported content encoding',
  'expectation-failed': 'Expectation failed',
  'rate-limited': 'Too many requests',
  'headers-too-large': 'Request headers too large',
  internal: 'Internal error',
  'no-node-available': 'No node available',
  unavailable: 'Service unavailable',
};

/** Retry-After when the error does not say: a moment, for a load balancer or a retry loop. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** A refusal as the table reads it: the control plane's own (FerryError) or HTTP's (HttpProblem). */
interface Refusal {
  code: ErrorCode;
  message: string;
  errors?: FieldError[] | undefined;
  extra?: Record<string, unknown> | undefined;
  retryAfterSeconds?: number | undefined;
}

export function problemOf(error: Refusal): ControlProblem {
  return {
    ...error.extra,
    type: problemType(error.code),
    title: TITLE_OF[error.code],
    status: statusOf(error.code),
    detail: error.message,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** The headers an answer with this error carries besides its content type. */
export function problemHeaders(
  error: Refusal,
  extra: Record<string, string> = {},
): Record<string, string> {
  const status = statusOf(error.code);
  const headers: Record<string, string> = { ...extra };
  if (status === 401) headers['www-authenticate'] = 'Bearer';
  if (RETRY_AFTER_STATUSES.includes(status))
    headers['retry-after'] = String(error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
  return headers;
}

/**
 * The answer for anything thrown on the way to or in a handler: a refusal keeps its code; anything
 * else is a bug, logged (what it was, never who asked or what they sent) and answered `internal`.
 */
export function controlAnswerFor(logger: Pick<Logger, 'error'>): AnswerFor {
  return (error) => {
    let refusal: Refusal & { headers?: Readonly<Record<string, string>> };
    if (error instanceof FerryError || error instanceof HttpProblem) {
      refusal = error;
    } else {
      const bug = error as Error;
      logger.error({ err: { message: bug.message, stack: bug.stack } }, 'unhandled error');
      refusal = new FerryError('internal', 'something went wrong on our side');
    }
    return { body: problemOf(refusal), headers: problemHeaders(refusal, refusal.headers) };
  };
}
