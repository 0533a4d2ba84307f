// The faces' codes: every boundary's vocabulary is in the one union, a code of a newer build
// passes as it is, and the one FerryError keeps every field the control plane and engine use.
import { describe, expect, it } from 'vitest';
import { CLIENT_ERROR_CODES } from './api-error.js';
import { ENGINE_ERROR_CODES, ENGINE_ERROR_STATUS } from './engine-errors.js';
import { FACE_CODES, FACE_HOST_CODES, faceCodeOf, isFaceCode } from './face-codes.js';
import { FerryError, fail, ok } from './ferry-error.js';
import { FaceError } from './ipc.js';
import { ERROR_CODES } from './problem.js';

describe('face codes', () => {
  it('hold the control API’s, the engine’s, a client’s and the face hosts’ codes, each once', () => {
    for (const code of [
      ...ERROR_CODES,
      ...ENGINE_ERROR_CODES,
      ...CLIENT_ERROR_CODES,
      ...FACE_HOST_CODES,
    ])
      expect(isFaceCode(code)).toBe(true);
    expect(new Set(FACE_CODES).size).toBe(FACE_CODES.length);
    expect(isFaceCode('engine-unavailable')).toBe(true);
    expect(isFaceCode('enigne-unavailable')).toBe(false);
  });

  it('pass a newer build’s code on as it is, in the IPC schema too', () => {
    expect(faceCodeOf('from-a-newer-engine')).toBe('from-a-newer-engine');
    expect(FaceError.parse({ code: 'from-a-newer-engine', message: 'x' }).code).toBe(
      'from-a-newer-engine',
    );
    expect(FaceError.safeParse({ code: '', message: 'x' }).success).toBe(false);
  });

  it('give every engine code a local API status that is a refusal', () => {
    for (const code of ENGINE_ERROR_CODES) expect(ENGINE_ERROR_STATUS[code]).toBeGreaterThan(399);
    expect(Object.keys(ENGINE_ERROR_STATUS).sort()).toEqual([...ENGINE_ERROR_CODES].sort());
  });
});

describe('FerryError', () => {
  it('keeps the code, message, cause, field errors, extra members and Retry-After', () => {
    const cause = new Error('underneath');
    const e = new FerryError('device-limit', 'the plan allows 2 devices', {
      cause,
      errors: [{ field: 'device', message: 'one too many' }],
      extra: { devices: [] },
      retryAfterSeconds: 5,
    });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({
      name: 'FerryError',
      code: 'device-limit',
      message: 'the plan allows 2 devices',
      errors: [{ field: 'device', message: 'one too many' }],
      extra: { devices: [] },
      retryAfterSeconds: 5,
    });
    expect(e.cause).toBe(cause);
    expect(new FerryError('config-invalid', 'no').cause).toBeUndefined();
  });

  it('makes the Result of an expected failure', () => {
    expect(ok(1)).toEqual({ ok: true, value: 1 });
    const r = fail('rule-exists', 'a rule named x exists');
    expect(r.ok).toBe(false);
    expect(r.error).toBeInstanceOf(FerryError);
    expect(r.error.code).toBe('rule-exists');
  });
});
