// Whether this network interferes with the tunnel (censorship): what the transport autopilot
// saw on this connect (the tunnel's transport and why), or, while disconnected, what got
// through on this network before. In words, with what to do; no address or name.
import {
  diagnosticCheck,
  TRANSPORT_NAMES,
  type DiagnosticCheck,
  type LocalStatus,
  type ObfuscationMode,
  type Transport,
} from '../../contracts/index.js';

export interface CensorshipDeps {
  status: Pick<LocalStatus, 'status' | 'transport' | 'transport_reason'>;
  obfuscation: ObfuscationMode;
  /** What got through on the network the host is on now (null: nothing known). */
  remembered(): Promise<Transport | null>;
}

const SETTING_FIX = (t: Transport) =>
  `nothing to do while it works; if connecting stops working here, try netcli config set obfuscation ${t === 'tcp' ? 'tls' : t}`;

export async function checkCensorship(deps: CensorshipDeps): Promise<DiagnosticCheck> {
  const { status, transport, transport_reason: reason } = deps.status;
  if (status === 'connected' && transport && reason) {
    const name = TRANSPORT_NAMES[transport];
    switch (reason.code) {
      case 'chosen':
        return diagnosticCheck(
          'censorship',
          'skipped',
          `obfuscation is ${deps.obfuscation}: the tunnel runs over ${name} whatever the network does (the autopilot is off)`,
        );
      case 'fallback':
        return diagnosticCheck(
          'censorship',
          'warning',
          `this network interferes: ${reason.message}`,
          SETTING_FIX(transport),
        );
      case 'remembered':
        return transport === 'udp'
          ? diagnosticCheck('censorship', 'ok', 'no sign of interference: UDP gets through')
          : diagnosticCheck(
              'censorship',
              'warning',
              `this network blocked faster transports before: ${reason.message}`,
              SETTING_FIX(transport),
            );
      default:
        return transport === 'udp'
          ? diagnosticCheck('censorship', 'ok', 'no sign of interference: UDP gets through')
          : diagnosticCheck('censorship', 'ok', reason.message);
    }
  }
  const remembered = await deps.remembered().catch(() => null);
  if (remembered === null)
    return diagnosticCheck(
      'censorship',
      'skipped',
      'no connect on this network yet: the autopilot will find out what gets through',
    );
  return remembered === 'udp'
    ? diagnosticCheck('censorship', 'ok', 'UDP got through on this network before')
    : diagnosticCheck(
        'censorship',
        'warning',
        `faster transports were blocked on this network before: the next connect starts with ${TRANSPORT_NAMES[remembered]}`,
        SETTING_FIX(remembered),
      );
}
