// The notices a person sees: the current connection's (in its status) and those the engine
// announced as events since, each once, newest last.
import type { Notice } from '../../contracts/control-api.js';

/** How many announced notices are kept (the status's own are always shown). */
export const NOTICE_LIMIT = 10;

const key = (n: Notice) => `${n.code}\u0000${n.message}`;

/** `a` then `b`, without repeats (same code and message). */
export function mergeNotices(a: readonly Notice[], b: readonly Notice[]): Notice[] {
  const seen = new Set<string>();
  const out: Notice[] = [];
  for (const n of [...a, ...b]) {
    if (seen.has(key(n))) continue;
    seen.add(key(n));
    out.push(n);
  }
  return out;
}

/** The announced notices with `notice` added (moved to the end if it was there). */
export function addNotice(list: readonly Notice[], notice: Notice): Notice[] {
  const rest = list.filter((n) => key(n) !== key(notice));
  return [...rest, notice].slice(-NOTICE_LIMIT);
}
