// The codes a face (netcli, the terminal UI, the desktop app, the web graphical mode) may be
// refused with, declared once: the control API's, the engine's, a client's (no answer) and the
// face hosts' own. Word tables are keyed by FaceCode, so a misspelt code does not compile.
import { CLIENT_ERROR_CODES, type ClientErrorCode } from './api-error.js';
import { ENGINE_ERROR_CODES, type EngineErrorCode } from './engine-errors.js';
import { ERROR_CODES, type ErrorCode } from './problem.js';

/** What the desktop app's main process refuses with of its own: no engine answers it. */
export const FACE_HOST_CODES = ['engine-unavailable'] as const;
export type FaceHostCode = (typeof FACE_HOST_CODES)[number];

/** Every code this build knows. */
export type FaceCode = ErrorCode | EngineErrorCode | ClientErrorCode | FaceHostCode;

export const FACE_CODES: readonly FaceCode[] = [
  ...new Set<FaceCode>([
    ...ERROR_CODES,
    ...ENGINE_ERROR_CODES,
    ...CLIENT_ERROR_CODES,
    ...FACE_HOST_CODES,
  ]),
];

declare const newerCode: unique symbol;
/**
 * A code of a newer engine or control plane than this build: passed on as it is (codes are
 * added, never renamed), shown by its message. Branded, so that only `faceCodeOf` makes one and a
 * misspelt literal is no FaceError code.
 */
export type NewerCode = string & { readonly [newerCode]: true };

const KNOWN: ReadonlySet<string> = new Set(FACE_CODES);

export function isFaceCode(code: string): code is FaceCode {
  return KNOWN.has(code);
}

/** A code that came over a boundary (an HTTP problem, an IPC answer), as the faces type it. */
export function faceCodeOf(code: string): FaceCode | NewerCode {
  return isFaceCode(code) ? code : (code as NewerCode);
}
