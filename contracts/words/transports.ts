// The words of the transports and of why the tunnel runs over one (status, app, TUI, diagnose).
import type { Blockage, Transport, TransportReason, TransportReasonCode } from '../transports.js';
import { translator } from '../i18n/translator.js';

// English, from the catalog (contracts/i18n/catalogs/en.json) like every language.
const t = translator('en');

export const TRANSPORT_NAMES: Readonly<Record<Transport, string>> = {
  udp: t('transports.names.udp'),
  tcp: t('transports.names.tcp'),
  tls: t('transports.names.tls'),
};

const BLOCKAGE_WORDS: Readonly<Record<Blockage, string>> = {
  'udp-unanswered': t('transports.blockages.udp-unanswered'),
  'udp-throttled': t('transports.blockages.udp-throttled'),
  'tcp-unanswered': t('transports.blockages.tcp-unanswered'),
  'tcp-reset': t('transports.blockages.tcp-reset'),
  'tcp-silenced': t('transports.blockages.tcp-silenced'),
  'tcp-stalled': t('transports.blockages.tcp-stalled'),
  'tls-reset': t('transports.blockages.tls-reset'),
  failed: t('transports.blockages.failed'),
};

/** "UDP looks blocked on this network", for one blockage. */
export function blockageText(blockage: Blockage): string {
  return BLOCKAGE_WORDS[blockage];
}

/** The reason in words: "UDP looks blocked on this network: using TLS". */
export function transportReasonText(
  transport: Transport,
  code: TransportReasonCode,
  blocked: TransportReason['blocked'],
): string {
  const name = TRANSPORT_NAMES[transport];
  if (code !== 'fallback') return t(`transports.reasons.${code}`, { transport: name });
  const seen = [...new Set(blocked.map((b) => BLOCKAGE_WORDS[b.blockage]))];
  const blockages =
    seen.length > 0
      ? seen.join(t('transports.blockageSeparator'))
      : t('transports.blockagesUnexplained');
  return t('transports.reasons.fallback', { blockages, transport: name });
}
