// The one FerryError (a stable code, a user-safe message, a cause) that the control plane, the
// engine and platform/'s adapters raise, and the Result type of their expected failures.
import type { EngineErrorCode } from './engine-errors.js';
import type { ErrorCode, FieldError } from './problem.js';

/** Every code a FerryError may carry: the control API's and the engine's. */
export type FerryErrorCode = ErrorCode | EngineErrorCode;

export interface FerryErrorOptions {
  cause?: unknown;
  /** Per-field detail for validation failures (answered in the problem's `errors`). */
  errors?: FieldError[];
  /** Extra members of the problem body (e.g. the devices of a full account). */
  extra?: Record<string, unknown>;
  /** For failures that pass (rate limits, no capacity): when trying again makes sense. */
  retryAfterSeconds?: number;
}

/**
 * A failure a person can be shown. The message names no destination, DNS query, user address or
 * key (the no-logs rule): hosts print and log it as it is. `cause` holds what went wrong
 * underneath, for diagnostics, and is held to the same rule. A room narrows `C` to the codes its
 * boundary answers with (the control plane: the control API's only).
 */
export class FerryError<C extends FerryErrorCode = FerryErrorCode> extends Error {
  readonly code: C;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: C, message: string, opts: FerryErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FerryError';
    this.code = code;
    this.errors = opts.errors;
    this.extra = opts.extra;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** An expected failure is a value; bugs throw. */
export type Result<T, C extends FerryErrorCode = FerryErrorCode> =
  { ok: true; value: T } | { ok: false; error: FerryError<C> };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail<C extends FerryErrorCode>(
  code: C,
  message: string,
  opts?: FerryErrorOptions,
): { ok: false; error: FerryError<C> } {
  return { ok: false, error: new FerryError(code, message, opts) };
}
