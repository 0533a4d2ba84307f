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
  type TransportReason,
} from '../../contracts/index.js';

export interface CensorshipDeps {
  status: Pick<LocalStatus, 'status' | 'transport' | 'transport_reason'>;
  obfuscation: ObfuscationMode;
  /** What got through on the network the host is on now (null: nothing known). */
  remembered(): Promise<Transport | null>;
}

const SETTING_FIX = (t: Transport) =>
  `nothing to do while it works; if connecting stops working here, try netcli config set obfuscation ${obfuscationFor(t)}`;

/** The obfuscation setting that keeps to what got through (TCP was: TLS hides it better). */
const obfuscationFor = (t: Transport) => (t === 'tcp' ? 'tls' : t);

/** The setting that fixes it, as an action. */
const settingAction = (t: Transport) =>
  ({ kind: 'setting', key: 'obfuscation', value: obfuscationFor(t) }) as const;

/** The blockages of a reason, as a finding's fact: their codes, comma-separated. */
const blockagesOf = (reason: TransportReason) =>
  [...new Set(reason.blocked.map((b) => b.blockage))].join(',');

export async function checkCensorship(deps: CensorshipDeps): Promise<DiagnosticCheck> {
  const { status, transport, transport_reason: reason } = deps.status;
  if (status === 'connected' && transport && reason) {
    const name = TRANSPORT_NAMES[transport];
    const udpOk = () =>
      diagnosticCheck('censorship', 'ok', 'no sign of interference: UDP gets through', null, {
        finding: 'udp-gets-through',
      });
    switch (reason.code) {
      case 'chosen':
        return diagnosticCheck(
          'censorship',
          'skipped',
          `obfuscation is ${deps.obfuscation}: the tunnel runs over ${name} whatever the network does (the autopilot is off)`,
          null,
          { finding: 'fixed', params: { obfuscation: deps.obfuscation, transport } },
        );
      case 'fallback':
        return diagnosticCheck(
          'censorship',
          'warning',
          `this network interferes: ${reason.message}`,
          SETTING_FIX(transport),
          {
            finding: 'interferes',
            params: {
              transport,
              reason: reason.code,
              blockages: blockagesOf(reason),
              value: obfuscationFor(transport),
            },
            action: settingAction(transport),
          },
        );
      case 'remembered':
        return transport === 'udp'
          ? udpOk()
          : diagnosticCheck(
              'censorship',
              'warning',
              `this network blocked faster transports before: ${reason.message}`,
              SETTING_FIX(transport),
              {
                finding: 'blocked-before',
                params: { transport, reason: reason.code, value: obfuscationFor(transport) },
                action: settingAction(transport),
              },
            );
      default:
        return transport === 'udp'
          ? udpOk()
          : diagnosticCheck('censorship', 'ok', reason.message, null, {
              finding: 'transport-reason',
              params: { transport, reason: reason.code },
            });
    }
  }
  const remembered = await deps.remembered().catch(() => null);
  if (remembered === null)
    return diagnosticCheck(
      'censorship',
      'skipped',
      'no connect on this network yet: the autopilot will find out what gets through',
      null,
      { finding: 'no-history' },
    );
  return remembered === 'udp'
    ? diagnosticCheck('censorship', 'ok', 'UDP got through on this network before', null, {
        finding: 'udp-before',
      })
    : diagnosticCheck(
        'censorship',
        'warning',
        `faster transports were blocked on this network before: the next connect starts with ${TRANSPORT_NAMES[remembered]}`,
        SETTING_FIX(remembered),
        {
          finding: 'blocked-before-idle',
          params: { transport: remembered, value: obfuscationFor(remembered) },
          action: settingAction(remembered),
        },
      );
}
