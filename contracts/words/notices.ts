// Short titles for the notices the engine and the service send (the message says the rest), as
// the app shows them above each notice.
import type { NoticeCode } from '../notice-codes.js';
import { translator, type Translate } from '../i18n/translator.js';
import {
  isBlockage,
  isTransport,
  isTransportReasonCode,
  type Blockage,
  type Transport,
} from '../transports.js';
import { transportNames, transportReasonText } from './transports.js';

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
  const p = notice.params ?? {};
  const text = (key: string): string | undefined =>
    typeof p[key] === 'string' ? p[key] : undefined;
  switch (notice.code) {
    case 'unreachable-passed-over':
    case 'split-unavailable':
    case 'dns-split-unavailable':
      return t(`notices.messages.${notice.code}`);
    case 'reconnecting':
      return t('notices.messages.reconnecting');
    case 'cipher-substituted': {
      const asked = text('asked');
      const used = text('used');
      if (asked && used) return t('notices.messages.cipher-substituted', { asked, used });
      break;
    }
    case 'region-fallback': {
      const asked = text('asked');
      if (asked) return t('notices.messages.region-fallback', { asked });
      break;
    }
    case 'failover': {
      const region = text('region');
      if (region) return t('notices.messages.failover', { region });
      break;
    }
    case 'obfuscated':
    case 'udp-blocked':
    case 'transport-fallback':
    case 'transport-remembered': {
      const words = transportNoticeText(notice.code, p, t);
      if (words !== undefined) return words;
      break;
    }
  }
  return notice.message;
}

/** The transport notices: the reason in words, and WireGuard's stand-in when it had to stand aside. */
function transportNoticeText(
  code: 'obfuscated' | 'udp-blocked' | 'transport-fallback' | 'transport-remembered',
  p: Readonly<Record<string, string | number>>,
  t: Translate,
): string | undefined {
  const transport = p.transport;
  const reason = p.reason;
  if (!isTransport(transport) || !isTransportReasonCode(reason)) return undefined;
  const blocked: { transport: Transport; blockage: Blockage }[] = [];
  for (const entry of typeof p.blocked === 'string' && p.blocked ? p.blocked.split(',') : []) {
    const [tr, blockage] = entry.split(':');
    if (isTransport(tr) && isBlockage(blockage)) blocked.push({ transport: tr, blockage });
  }
  const name = transportNames(t)[transport];
  const standIn = p.stand_in === 'wireguard';
  if (code === 'obfuscated' && typeof p.setting === 'string') {
    return standIn
      ? t('notices.messages.obfuscated-stand-in', { setting: p.setting, transport: name })
      : t('notices.messages.obfuscated', { setting: p.setting, transport: name });
  }
  const words = t('notices.messages.transport', {
    reason: transportReasonText(transport, reason, blocked, t),
  });
  return standIn ? `${words} ${t('notices.messages.stand-in', { transport: name })}` : words;
}
