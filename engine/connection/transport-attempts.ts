// Which transports a connect tries, in order, from the protocol the control plane answered and
// the obfuscation setting: UDP first and Ferry over TCP when UDP gets no answer (auto), TCP only
// (on), UDP only (off). WireGuard has no TCP: Ferry over TCP stands in for it.
import type { ObfuscationMode, Protocol } from '../../contracts/index.js';

export interface TransportAttempt {
  protocol: Protocol;
  transport: 'udp' | 'tcp';
  /** How long this attempt may take before the next one is tried (undefined: the whole limit). */
  timeoutMs?: number;
}

/** About how long UDP gets under `auto` before TCP is tried (design.md: "~2 s"). */
export const UDP_ATTEMPT_MS = 2_500;

export function transportAttempts(
  protocol: Protocol,
  nodeHasFerry: boolean,
  obfuscation: ObfuscationMode,
  udpAttemptMs = UDP_ATTEMPT_MS,
): TransportAttempt[] {
  const tcp: TransportAttempt = { protocol: 'ferry', transport: 'tcp' };
  const udp: TransportAttempt = { protocol, transport: 'udp' };
  if (obfuscation === 'off' || (protocol === 'wireguard' && !nodeHasFerry)) return [udp];
  if (obfuscation === 'on') return [tcp];
  return [{ ...udp, timeoutMs: udpAttemptMs }, tcp];
}

/** The notice of a connect that ended up on Ferry over TCP although the user chose otherwise. */
export function obfuscationNotice(
  asked: Protocol,
  obfuscation: ObfuscationMode,
): { code: string; message: string } {
  if (obfuscation === 'on')
    return asked === 'wireguard'
      ? {
          code: 'obfuscated',
          message:
            'obfuscation is on: connected with Ferry over TCP, which hides the tunnel (WireGuard cannot); your protocol setting stays wireguard',
        }
      : { code: 'obfuscated', message: 'obfuscation is on: connected over TCP' };
  return asked === 'wireguard'
    ? {
        code: 'udp-blocked',
        message:
          'WireGuard got no answer over UDP (blocked on this network?): switched to Ferry over TCP; your protocol setting stays wireguard',
      }
    : {
        code: 'udp-blocked',
        message: 'the node got no answer over UDP (blocked on this network?): connected over TCP',
      };
}
