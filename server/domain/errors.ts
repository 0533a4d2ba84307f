// The one FerryError (contracts/ferry-error.ts) as the control plane raises it: typed to the
// control API's codes, since its problems may carry no other; and the Result of its failures.
import {
  FerryError as AnyFerryError,
  fail as failWith,
  type ErrorCode,
  type FerryErrorOptions,
  type Result as AnyResult,
} from '../../contracts/index.js';

export { ok, type FerryErrorOptions } from '../../contracts/index.js';

/** A FerryError with one of the control API's codes. */
export type FerryError = AnyFerryError<ErrorCode>;
/** The same class (`instanceof` holds both ways), constructible with the control API's codes only. */
export const FerryError: new (
  code: ErrorCode,
  message: string,
  opts?: FerryErrorOptions,
) => FerryError = AnyFerryError;

export type Result<T> = AnyResult<T, ErrorCode>;

export function fail(
  code: ErrorCode,
  message: string,
  opts?: FerryErrorOptions,
): { ok: false; error: FerryError } {
  return failWith(code, message, opts);
}
