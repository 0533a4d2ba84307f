// The error every EngineTransport call rejects with: a FaceError (stable code, a message a
// person can read, per-field errors) as an Error, whatever carried the call.
import { ApiError } from '../../contracts/api-error.js';
import { faceCodeOf, type FaceCode, type NewerCode } from '../../contracts/face-codes.js';
import type { FaceError } from '../../contracts/ipc.js';
import type { FieldError } from '../../contracts/problem.js';

export class FaceCallError extends Error implements FaceError {
  readonly code: FaceCode | NewerCode;
  readonly errors: FieldError[] | undefined;

  constructor(error: FaceError, options?: { cause?: unknown }) {
    super(error.message, options);
    // eslint-disable-next-line i18next/no-literal-string -- the class's name, for stacks and logs.
    this.name = 'FaceCallError';
    this.code = error.code;
    this.errors = error.errors;
  }

  /** The plain FaceError (what the store keeps): no stack, no cause. */
  toFaceError(): FaceError {
    return {
      code: this.code,
      message: this.message,
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
    };
  }
}

/**
 * Any failure of a call as a FaceCallError: an ApiError keeps its code, detail and field
 * errors; anything else is a bug below the seam and says so (`internal`).
 */
export function toFaceCallError(e: unknown): FaceCallError {
  if (e instanceof FaceCallError) return e;
  if (e instanceof ApiError) {
    return new FaceCallError(
      { code: faceCodeOf(e.code), message: e.detail, ...(e.errors ? { errors: e.errors } : {}) },
      { cause: e },
    );
  }
  const message = e instanceof Error ? e.message : String(e);
  return new FaceCallError(
    // eslint-disable-next-line i18next/no-literal-string -- a developer's detail, not the words shown.
    { code: 'internal', message: `unexpected error: ${message}` },
    { cause: e },
  );
}
