// The local API's one error table: the engine's codes, the control plane's (passed on) and the
// host's own, each to an HTTP status, and the problem+json body every refusal is answered with.
import { STATUS_CODES } from 'node:http';
import {
  ApiError,
  ENGINE_ERROR_STATUS,
  ERROR_STATUS,
  FerryError,
  type ApiErrorCode,
  type ClientErrorCode,
  type FieldError,
} from '../../contracts/index.js';
import {
  HttpProblem,
  type ProblemAnswer,
  type ProblemBody,
} from '../../platform/http/http-problem.js';

/** What a code without an entry is answered with (a newer engine than this host). */
export const UNKNOWN_CODE_STATUS = 500;

/**
 * The statuses of what a control-plane client reports without an answer of the control plane:
 * the engine could not reach it (502), it was too slow (504), its answer was unreadable (502).
 */
const CLIENT_CODE_STATUS: Readonly<Partial<Record<ClientErrorCode, number>>> = {
  unreachable: 502,
  timeout: 504,
  'bad-response': 502,
  aborted: 503,
};

/** The status of a FerryError's code: the engine's table, or the control API's for its codes. */
export function engineErrorStatus(code: string): number {
  return (
    (ENGINE_ERROR_STATUS as Record<string, number>)[code] ??
    (ERROR_STATUS as Record<string, number>)[code] ??
    UNKNOWN_CODE_STATUS
  );
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
        : ((CLIENT_CODE_STATUS as Record<string, number>)[error.code] ?? 502);
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
