// The Result type for the engine's expected failures, and errno codes; FerryError and the
// engine's codes live in contracts/engine-errors.ts (re-exported here for the engine's files).
import {
  FerryError,
  type EngineErrorCode,
  type FerryErrorOptions,
} from '../contracts/engine-errors.js';

export {
  ENGINE_ERROR_CODES,
  FerryError,
  type EngineErrorCode,
  type FerryErrorOptions,
} from '../contracts/engine-errors.js';

export type Result<T> = { ok: true; value: T } | { ok: false; error: FerryError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(
  code: EngineErrorCode,
  message: string,
  opts?: FerryErrorOptions,
): { ok: false; error: FerryError } {
  return { ok: false, error: new FerryError(code, message, opts) };
}

/** The errno code of a Node system error (ENOENT, EACCES...), for messages and decisions. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
