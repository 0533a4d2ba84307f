// The words of the transports and of why the tunnel runs over one (status, app, TUI, diagnose).
import type { Blockage, Transport, TransportReason, TransportReasonCode } from '../transports.js';

export const TRANSPORT_NAMES: Readonly<Record<Transport, string>> = {
  udp: 'UDP',
  tcp: 'TCP',
  tls: 'TLS',
};

const BLOCKAGE_WORDS: Readonly<Record<Blockage, string>> = {
  'udp-unanswered': 'UDP looks blocked on this network',
  'udp-throttled': 'UDP is throttled on this network',
  'tcp-unanswered': 'TCP to the server’s port gets no answer',
  'tcp-reset': 'TCP to the server was reset',
  'tcp-silenced': 'TCP to the server went silent after its first packet',
  'tcp-stalled': 'TCP to the server stalled after a few kilobytes',
  'tls-reset': 'the TLS hello was reset',
  failed: 'the other transports failed',
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
  switch (code) {
    case 'chosen':
      return `using ${name}, as the obfuscation setting says`;
    case 'first-choice':
      return `using ${name}, the first the autopilot tried`;
    case 'remembered':
      return `${name} worked on this network before: using it`;
    case 'only-offered':
      return `using ${name}, the only transport the server offers here`;
    case 'retried':
      return `${name} gets through on this network again: using it`;
    case 'fallback': {
      const seen = [...new Set(blocked.map((b) => BLOCKAGE_WORDS[b.blockage]))];
      return `${seen.length > 0 ? seen.join('; ') : 'the faster transports failed'}: using ${name}`;
    }
  }
}
