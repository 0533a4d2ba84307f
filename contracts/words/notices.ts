// Short titles for the notices the engine and the service send (the message says the rest), as
// the app shows them above each notice.
import type { NoticeCode } from '../notice-codes.js';
import { translator } from '../i18n/translator.js';

// English, from the catalog (contracts/i18n/catalogs/en.json) like every language.
const t = translator('en');

const NOTICE_TITLES = {
  failover: t('notices.titles.failover'),
  'cipher-substituted': t('notices.titles.cipher-substituted'),
  'split-unavailable': t('notices.titles.split-unavailable'),
  'dns-split-unavailable': t('notices.titles.dns-split-unavailable'),
  'udp-blocked': t('notices.titles.udp-blocked'),
  obfuscated: t('notices.titles.obfuscated'),
  'transport-fallback': t('notices.titles.transport-fallback'),
  'transport-remembered': t('notices.titles.transport-remembered'),
  reconnecting: t('notices.titles.reconnecting'),
} as const satisfies Partial<Record<NoticeCode, string>>;

/** A title for every notice; one without a title of its own (or a newer one) is a "Notice". */
export function noticeTitle(code: string): string {
  if (Object.hasOwn(NOTICE_TITLES, code)) return NOTICE_TITLES[code as keyof typeof NOTICE_TITLES];
  if (code.startsWith('data-cap')) return t('notices.dataCap');
  return t('notices.general');
}
