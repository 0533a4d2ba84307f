// Short titles for the notices the engine and the service send (the message says the rest), as
// the app shows them above each notice.
import type { NoticeCode } from '../notice-codes.js';

const NOTICE_TITLES = {
  failover: 'Moved to another server',
  'cipher-substituted': 'Another cipher is in use',
  'split-unavailable': 'Split tunneling is off',
  'dns-split-unavailable': 'Domestic names go through the tunnel',
  'udp-blocked': 'UDP is blocked',
  obfuscated: 'Connection disguised',
  'transport-fallback': 'Transport blocked',
  'transport-remembered': 'Transport for this network',
  reconnecting: 'Still reconnecting',
} as const satisfies Partial<Record<NoticeCode, string>>;

/** A title for every notice; one without a title of its own (or a newer one) is a "Notice". */
export function noticeTitle(code: string): string {
  if (Object.hasOwn(NOTICE_TITLES, code)) return NOTICE_TITLES[code as keyof typeof NOTICE_TITLES];
  if (code.startsWith('data-cap')) return 'Data cap';
  return 'Notice';
}
