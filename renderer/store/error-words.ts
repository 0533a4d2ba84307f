// Errors as the app shows them: the catalog's words for the few codes that need other words
// than the engine's own (no connection, not signed in, no service yet), and what the person can
// do about them.
import type { FaceCode, NewerCode } from '../../contracts/face-codes.js';
import type { FaceError } from '../../contracts/ipc.js';
import type { FieldError } from '../../contracts/problem.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';
import {
  NO_ANSWER_CODES,
  appErrorWords,
  engineDownWords,
  offlineWords,
  wordsFor,
} from '../../contracts/words/errors.js';

const english = translator('en');

/** What the screen offers beside the words. */
export type ErrorAction = 'sign-in' | 'setup' | null;

export interface ShownError {
  code: FaceCode | NewerCode;
  /** The words shown. */
  words: string;
  action: ErrorAction;
  /** The engine's per-field errors, when the refusal was about input. */
  errors: FieldError[];
}

export { ENGINE_DOWN_WORDS, OFFLINE_WORDS } from '../../contracts/words/errors.js';

/** What the screen offers beside the words, per code (the words: contracts/words/errors.ts). */
const ACTIONS = {
  'not-signed-in': 'sign-in',
  'service-not-configured': 'setup',
} as const satisfies Partial<Record<FaceCode, ErrorAction>>;

/** Words that keep their case at the start of a sentence: commands typed as they are. */
const AS_TYPED = /^(netcli|sudo)\b/;

/** A message as a sentence: capital first letter (not of a command), a full stop at the end. */
export function sentence(text: string, t: Translate = english): string {
  const trimmed = text.trim();
  if (!trimmed) return t('app.errors.somethingWrong');
  const first = AS_TYPED.test(trimmed) ? trimmed : trimmed[0]!.toUpperCase() + trimmed.slice(1);
  // The app's own sentences end as their language's do (Chinese: 。); the engine's, in English,
  // get a full stop.
  return /[.!?…。！？؟]$/.test(first) ? first : `${first}.`;
}

/**
 * The words for `error`. `engineLink` is the event stream's state: a call that got no answer
 * while the stream is broken means the engine itself is gone, not the service behind it.
 */
export function describeError(
  error: FaceError,
  engineLink: 'unknown' | 'up' | 'down' | 'signed-out' = 'up',
  t: Translate = english,
): ShownError {
  const errors = error.errors ?? [];
  if (NO_ANSWER_CODES.has(error.code)) {
    const words = engineLink === 'down' ? engineDownWords(t) : offlineWords(t);
    return { code: error.code, words, action: null, errors };
  }
  const own = wordsFor(appErrorWords(t), error.code);
  if (own)
    return { code: error.code, words: own, action: wordsFor(ACTIONS, error.code) ?? null, errors };
  return { code: error.code, words: sentence(error.message, t), action: null, errors };
}
