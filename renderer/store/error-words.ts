// Errors in words a person reads: the few codes that need other words than the engine's own
// (no connection, not signed in, no service yet), and what the person can do about them.
import type { FaceError } from '../../contracts/ipc.js';
import type { FieldError } from '../../contracts/problem.js';

/** What the screen offers beside the words. */
export type ErrorAction = 'sign-in' | 'setup' | null;

export interface ShownError {
  code: string;
  /** The words shown. */
  words: string;
  action: ErrorAction;
  /** The engine's per-field errors, when the refusal was about input. */
  errors: FieldError[];
}

export const OFFLINE_WORDS =
  "Ferry can't reach its service right now. Check your internet connection.";
export const ENGINE_DOWN_WORDS =
  "Ferry's engine isn't answering. Make sure Ferry is running; this window reconnects on its own.";

/** Codes of a call that got no readable answer (from the control plane, or the engine). */
const NO_ANSWER = new Set(['unreachable', 'timeout', 'bad-response', 'host-unresolvable']);

const OWN_WORDS: Readonly<Record<string, { words: string; action: ErrorAction }>> = {
  // `unauthorized` keeps the engine's words: in the web graphical mode it is this page's own
  // session that ended (the host says to open a new link), not the device's.
  'not-signed-in': { words: 'Sign in to your Ferry account first.', action: 'sign-in' },
  'service-not-configured': {
    words: "Ferry doesn't know its service address yet. Enter it to continue.",
    action: 'setup',
  },
  // A new device (signing in, a phone or tablet) over the plan's limit: the engine's message
  // names the plan and the number; what to do is the same everywhere.
  'device-limit': {
    words:
      'Your plan’s device limit is reached. Revoke a device you no longer use first (under Devices on the Account screen), then try again.',
    action: null,
  },
  'rate-limited': {
    words: 'Too many attempts in a short time. Wait a minute, then try again.',
    action: null,
  },
};

/** Words that keep their case at the start of a sentence: commands typed as they are. */
const AS_TYPED = /^(netcli|sudo)\b/;

/** A message as a sentence: capital first letter (not of a command), a full stop at the end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return 'Something went wrong.';
  const first = AS_TYPED.test(t) ? t : t[0]!.toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/**
 * The words for `error`. `engineLink` is the event stream's state: a call that got no answer
 * while the stream is broken means the engine itself is gone, not the service behind it.
 */
export function describeError(
  error: FaceError,
  engineLink: 'unknown' | 'up' | 'down' | 'signed-out' = 'up',
): ShownError {
  const errors = error.errors ?? [];
  if (NO_ANSWER.has(error.code)) {
    const words = engineLink === 'down' ? ENGINE_DOWN_WORDS : OFFLINE_WORDS;
    return { code: error.code, words, action: null, errors };
  }
  const own = OWN_WORDS[error.code];
  if (own) return { code: error.code, ...own, errors };
  return { code: error.code, words: sentence(error.message), action: null, errors };
}
