// The browsers signed in to the web graphical mode, in words: which one this is, since when,
// last used when, and until when at the latest; and the rule sessions follow.
import {
  BROWSER_SESSION_IDLE_MS,
  BROWSER_SESSION_LIFETIME_MS,
  type BrowserSession,
} from '../../../contracts/browser-sessions.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import { english } from './english.js';

export interface BrowserSessionRow {
  id: string;
  current: boolean;
  /** "This browser", or "Browser signed in at 08:00". */
  title: string;
  /** "Signed in 08:00 · last used 08:05 · ends by 20:00". */
  detail: string;
  /** The button's accessible name. */
  endLabel: string;
}

/** A time of day, the way this browser writes them; to the second where minutes are not enough. */
export type TimeWords = (iso: string, seconds?: boolean) => string;

export function timeOfDay(locale?: string, timeZone?: string): TimeWords {
  const minutes = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone });
  const seconds = new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone,
  });
  return (iso, precise = false) => (precise ? seconds : minutes).format(new Date(iso));
}

/**
 * This browser first, then the others, newest first. Others that signed in within the same
 * minute are told apart by the second, and within the same second by a number in the order
 * they signed in (their names and buttons must differ).
 */
export function browserSessionRows(
  sessions: readonly BrowserSession[],
  time: TimeWords,
  t: Translate = english,
): BrowserSessionRow[] {
  const count = (names: string[]) => {
    const n = new Map<string, number>();
    for (const name of names) n.set(name, (n.get(name) ?? 0) + 1);
    return n;
  };
  const minutes = count(sessions.map((s) => time(s.created_at)));
  const sinceOf = (s: BrowserSession) =>
    time(s.created_at, (minutes.get(time(s.created_at)) ?? 0) > 1);
  const seconds = count(sessions.map(sinceOf));
  const ordinal = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const s of [...sessions].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    const since = sinceOf(s);
    if ((seconds.get(since) ?? 0) < 2) continue;
    const n = (seen.get(since) ?? 0) + 1;
    seen.set(since, n);
    ordinal.set(s.id, ` (${n})`);
  }
  return [...sessions]
    .sort((a, b) =>
      a.current !== b.current ? (a.current ? -1 : 1) : b.created_at.localeCompare(a.created_at),
    )
    .map((s) => {
      const at = sinceOf(s);
      const since = `${at}${ordinal.get(s.id) ?? ''}`;
      return {
        id: s.id,
        current: s.current,
        title: s.current
          ? t('app.browsers.thisBrowser')
          : t('app.browsers.signedInAt', { time: since }),
        detail: t('app.browsers.detail', {
          since: at,
          seen: time(s.last_seen_at),
          ends: time(s.expires_at),
        }),
        endLabel: s.current
          ? t('app.browsers.signOutThis')
          : t('app.browsers.endAt', { time: since }),
      };
    });
}

function duration(ms: number, t: Translate): string {
  const minutes = Math.round(ms / 60_000);
  return minutes % 60 === 0
    ? t('app.browsers.hours', { count: minutes / 60 })
    : t('app.browsers.minutes', { count: minutes });
}

/** How long a browser stays signed in. */
export function sessionRuleWords(t: Translate = english): string {
  return t('app.browsers.rule', {
    idle: duration(BROWSER_SESSION_IDLE_MS, t),
    lifetime: duration(BROWSER_SESSION_LIFETIME_MS, t),
  });
}
