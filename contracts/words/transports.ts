// The words of the transports and of why the tunnel runs over one (status, app, TUI, diagnose).
import type { Blockage, Transport, TransportReason, TransportReasonCode } from '../transports.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

export function transportNames(t: Translate = english): Readonly<Record<Transport, string>> {
  return {
    udp: t('transports.names.udp'),
    tcp: t('transports.names.tcp'),
    tls: t('transports.names.tls'),
  };
}
export const TRANSPORT_NAMES = transportNames();

const blockageWords = (t: Translate): Readonly<Record<Blockage, string>> => ({
  'udp-unanswered': t('transports.blockages.udp-unanswered'),
  'udp-throttled': t('transports.blockages.udp-throttled'),
  'tcp-unanswered': t('transports.blockages.tcp-unanswered'),
  'tcp-reset': t('transports.blockages.tcp-reset'),
  'tcp-silenced': t('transports.blockages.tcp-silenced'),
  'tcp-stalled': t('transports.blockages.tcp-stalled'),
  'tls-reset': t('transports.blockages.tls-reset'),
  failed: t('transports.blockages.failed'),
});

/** "UDP looks blocked on this network", for one blockage. */
export function blockageText(blockage: Blockage, t: Translate = english): string {
  return blockageWords(t)[blockage];
}

/** The reason in words: "UDP looks blocked on this network: using TLS". */
export function transportReasonText(
  transport: Transport,
  code: TransportReasonCode,
  blocked: TransportReason['blocked'],
  t: Translate = english,
): string {
  const name = transportNames(t)[transport];
  const words = blockageWords(t);
  if (code !== 'fallback') return t(`transports.reasons.${code}`, { transport: name });
  const seen = [...new Set(blocked.map((b) => words[b.blockage]))];
  const blockages =
    seen.length > 0
      ? seen.join(t('transports.blockageSeparator'))
      : t('transports.blockagesUnexplained');
  return t('transports.reasons.fallback', { blockages, transport: name });
}
