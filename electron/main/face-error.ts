// Errors as they cross the IPC boundary: whatever a call threw becomes `{code, message, errors?}`
// with its code kept (the engine's, the control plane's, a client's, main's own); anything else
// is a bug and becomes `internal` with a generic message, never its text or stack.
import {
  faceCodeOf,
  type FaceCode,
  type FaceError,
  type FieldError,
  type NewerCode,
} from '../../contracts/index.js';
import { problemFor } from '../../engine/host/problems.js';

/** Codes main itself refuses with (its own, engine-unavailable, and the control API's and a client's). */
export type MainErrorCode = Extract<
  FaceCode,
  'engine-unavailable' | 'forbidden' | 'validation-failed' | 'bad-response' | 'internal'
>;

/** A refusal made by the main process itself: no engine, a foreign sender, a bad payload. */
export class FaceFailure extends Error {
  readonly code: MainErrorCode;
  readonly errors: FieldError[] | undefined;

  constructor(
    code: MainErrorCode,
    message: string,
    opts: { errors?: FieldError[]; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    // eslint-disable-next-line i18next/no-literal-string -- a class's name, not words
    this.name = 'FaceFailure';
    this.code = code;
    this.errors = opts.errors;
  }
}

export const INTERNAL_MESSAGE = 'something went wrong in the app; the log has the details';

/** The error for anything a call threw (see the top of the file). */
export function faceErrorOf(error: unknown): FaceError {
  if (error instanceof FaceFailure) return withErrors(error.code, error.message, error.errors);
  const answer = problemFor(error);
  if (answer)
    return withErrors(faceCodeOf(answer.body.code), answer.body.detail, answer.body.errors);
  return { code: 'internal', message: INTERNAL_MESSAGE };
}

/** Whether `faceErrorOf` would call this a bug (the caller logs those, and only those). */
export function isBug(error: unknown): boolean {
  return !(error instanceof FaceFailure) && problemFor(error) === undefined;
}

function withErrors(
  code: FaceCode | NewerCode,
  message: string,
  errors: FieldError[] | undefined,
): FaceError {
  return errors && errors.length > 0 ? { code, message, errors } : { code, message };
}
