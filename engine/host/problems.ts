// The local API's one error table: the engine's codes, the control plane's (passed on) and the
// host's own, each to an HTTP status, and the problem+json body every refusal is answered with.
import { STATUS_CODES } from 'node:http';
import {
  ApiError,
  ERROR_STATUS,
  type FieldError,
  type ApiErrorCode,
} from '../../contracts/index.js';
import {
  HttpProblem,
  type ProblemAnswer,
  type ProblemBody,
} from '../../platform/http/http-problem.js';
import { FerryError, type EngineErrorCode } from '../errors.js';

/**
 * Codes the engine is expected to add (the local API's contract names them); mapped ahead so
 * that the day they appear they already have their status. Once a code is in
 * ENGINE_ERROR_CODES the table below must hold it: a new engine code cannot be forgotten.
 */
type ExpectedEngineCode = 'not-connected' | 'connect-failed' | 'busy';

/** The HTTP status of each engine error code. */
export const ENGINE_ERROR_STATUS = {
  'config-invalid': 400,
  'config-corrupt': 500,
  'config-unreadable': 500,
  'config-write-failed': 500,
  'state-dir-unusable': 500,
  'state-dir-insecure': 500,
  'keys-corrupt': 500,
  'keys-unreadable': 500,
  'keys-insecure': 500,
  'keys-write-failed': 500,
  'key-rotation-mismatch': 409,
  'session-write-failed': 500,
  'session-unreadable': 500,
  'session-insecure': 500,
  'session-corrupt': 500,
  'not-signed-in': 409,
  'service-not-configured': 409,
  'service-insecure': 409,
  'rule-not-found': 404,
  'rule-exists': 409,
  superseded: 409,
  'os-command-failed': 500,
  'not-supported': 501,
  'illegal-transition': 500,
  'tunnel-failed': 500,
  'tunnel-timeout': 504,
  'node-unreachable': 504,
  'node-is-local': 409,
  cancelled: 409,
  'service-not-found': 404,
  'service-exists': 409,
  'tunnel-not-found': 404,
  'tunnel-exists': 409,
  'destinations-unresolved': 502,
  'host-unresolvable': 502,
  'geoip-file-invalid': 500,
  'geoip-file-unreadable': 500,
  'not-connected': 409,
  'connect-failed': 502,
  busy: 409,
} as const satisfies Record<EngineErrorCode, number> & Partial<Record<ExpectedEngineCode, number>>;

/** What a code without an entry is answered with (a newer engine than this host). */
export const UNKNOWN_CODE_STATUS = 500;

/**
 * The statuses of what a control-plane client reports without an answer of the control plane:
 * the engine could not reach it (502), it was too slow (504), its answer was unreadable (502).
 */
const CLIENT_CODE_STATUS: Readonly<Record<string, number>> = {
  unreachable: 502,
  timeout: 504,
  'bad-response': 502,
  aborted: 503,
};

export function engineErrorStatus(code: string): number {
  return (ENGINE_ERROR_STATUS as Record<string, number>)[code] ?? UNKNOWN_CODE_STATUS;
}

/** "not-signed-in" -> "Not signed in": a title for codes without one of their own. */
function titleOf(code: string, status: number): string {
  const words = code.replaceAll('-', ' ');
  return words ? words[0]!.toUpperCase() + words.slice(1) : (STATUS_CODES[status] ?? 'Error');
}

function problem(
  code: ApiErrorCode,
  status: number,
  detail: string,
  errors: FieldError[] | undefined,
  extra: Readonly<Record<string, unknown>> = {},
): ProblemBody {
  return {
    ...extra,
    type: `urn:ferry:problem:${code}`,
    title: titleOf(code, status),
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

/** The members of a control-plane problem the host sets itself; the rest are passed on. */
const OWN_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'errors']);

/**
 * The answer for anything a handler threw. Engine and host refusals keep their code; the
 * control plane's refusal keeps its code, status and extra members (device-limit's devices);
 * anything else is a bug and is answered `internal` without its message.
 */
export function problemFor(error: unknown): ProblemAnswer | undefined {
  if (error instanceof HttpProblem) {
    return {
      body: problem(error.code, ERROR_STATUS[error.code], error.message, error.errors),
      headers: { ...error.headers },
    };
  }
  if (error instanceof FerryError) {
    return {
      body: problem(error.code, engineErrorStatus(error.code), error.message, error.errors),
      headers: {},
    };
  }
  if (error instanceof ApiError) {
    // The control plane's refusal keeps its status; an answer it gave with a 2xx that could not
    // be read (too large, not JSON) is a failure of the service, never a 2xx of this host.
    const status =
      error.status !== undefined && error.status >= 400
        ? error.status
        : (CLIENT_CODE_STATUS[error.code] ?? 502);
    const extra = Object.fromEntries(
      Object.entries(error.problem ?? {}).filter(([k]) => !OWN_MEMBERS.has(k)),
    );
    const headers: Record<string, string> = {};
    if (error.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(error.retryAfterSeconds);
    return { body: problem(error.code, status, error.detail, error.errors, extra), headers };
  }
  return undefined;
}

/** The answer for a bug: nothing of the error's own text reaches the client. */
export function internalProblem(): ProblemAnswer {
  return {
    body: problem('internal', 500, 'something went wrong in the engine host', undefined),
    headers: {},
  };
}
