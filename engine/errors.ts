// The Result type for the engine's expected failures, and errno codes; FerryError and the
// engine's codes live in contracts (ferry-error.ts, engine-errors.ts), re-exported here for the
// engine's files.
import {
  fail as failWith,
  type EngineErrorCode,
  type FerryErrorOptions,
} from '../contracts/index.js';
import type { FerryError } from '../contracts/ferry-error.js';

export { ENGINE_ERROR_CODES, type EngineErrorCode } from '../contracts/engine-errors.js';
export { FerryError, ok, type FerryErrorOptions, type Result } from '../contracts/ferry-error.js';

/** An expected failure of the engine: only the engine's own codes. */
export function fail(
  code: EngineErrorCode,
  message: string,
  opts?: FerryErrorOptions,
): { ok: false; error: FerryError } {
  return failWith(code, message, opts);
}

/** The errno code of a Node system error (ENOENT, EACCES...), for messages and decisions. */
export { errnoCode } from '../platform/os/errno.js';
