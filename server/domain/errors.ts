// FerryError (a stable code, a user-safe message, a cause) and the Result type for expected failures.
import type { ErrorCode, FieldError } from '../../contracts/index.js';

export interface FerryErrorOptions {
  extra?: Record<string, unknown>;
  errors?: FieldError[];
  retryAfterSeconds?: number;
}

export class FerryError extends Error {
  readonly code: ErrorCode;
  /** Extra members of the problem body (e.g. the devices of a full account). */
  readonly extra: Record<string, unknown> | undefined;
  readonly errors: FieldError[] | undefined;
  /** For failures that pass (rate limits, no capacity): when trying again makes sense. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: FerryErrorOptions & { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FerryError';
    this.code = code;
    this.extra = opts.extra;
    this.errors = opts.errors;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: FerryError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(
  code: ErrorCode,
  message: string,
  opts?: FerryErrorOptions,
): { ok: false; error: FerryError } {
  return { ok: false, error: new FerryError(code, message, opts) };
}
