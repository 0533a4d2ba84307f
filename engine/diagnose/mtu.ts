// Whether packets of every size up to the tunnel's MTU cross the tunnel (mtu): pings with the
// Don't Fragment bit to the node's gateway address through the tunnel interface, from the MTU
// down to the smallest any IPv4 path carries. Large ones lost while small ones pass is an MTU
// black hole on the way to the node: a smaller tunnel MTU avoids it.
import { diagnosticCheck, type DiagnosticCheck } from '../../contracts/index.js';

/** IPv4 and ICMP headers: a ping of payload N is a packet of N + 28 bytes. */
export const PING_OVERHEAD = 28;
/** Payload sizes tried below the MTU's own. */
const SMALLER_PAYLOADS = [1400, 1280, 1200, 1000, 576] as const;
/** What `netcli config set mtu` takes. */
const CONFIG_MTU_MIN = 1280;
const CONFIG_MTU_MAX = 1500;

export interface MtuDeps {
  /** The tunnel that carries traffic now (null: none). */
  tunnel: { interfaceName: string; gateway: string; mtu: number } | null;
  /**
   * Whether a ping with `payload` bytes and DF set crossed the tunnel and came back. Rejects
   * when ping cannot be run at all.
   */
  ping(payload: number, signal: AbortSignal): Promise<boolean>;
}

/** The payload sizes to try for an MTU, largest first: the MTU's own and the smaller ones. */
export function mtuPayloads(mtu: number): number[] {
  const top = mtu - PING_OVERHEAD;
  return [...new Set([top, ...SMALLER_PAYLOADS.filter((s) => s < top)])].sort((a, b) => b - a);
}

/** The MTU to set when packets of `packet` bytes still cross: rounded down to tens, in range. */
export function suggestedMtu(packet: number): number {
  return Math.min(CONFIG_MTU_MAX, Math.max(CONFIG_MTU_MIN, Math.floor(packet / 10) * 10));
}

export async function checkMtu(deps: MtuDeps, signal: AbortSignal): Promise<DiagnosticCheck> {
  if (!deps.tunnel)
    return diagnosticCheck(
      'mtu',
      'skipped',
      'connect first: the check sends packets through the tunnel',
      null,
      { finding: 'not-connected' },
    );
  const payloads = mtuPayloads(deps.tunnel.mtu);
  let passed: boolean[];
  try {
    passed = await Promise.all(payloads.map((p) => deps.ping(p, signal)));
  } catch {
    signal.throwIfAborted();
    return diagnosticCheck(
      'mtu',
      'warning',
      'ping could not be run to measure the tunnel',
      'install ping (Debian: apt install iputils-ping)',
      { finding: 'no-ping' },
    );
  }
  const largest = payloads.find((_, i) => passed[i]);
  if (largest === undefined) {
    const bytes = payloads.at(-1)! + PING_OVERHEAD;
    return diagnosticCheck(
      'mtu',
      'problem',
      `nothing crossed the tunnel, not even ${bytes}-byte packets`,
      'reconnect (netcli connect), or try another region',
      { finding: 'nothing-crosses', params: { bytes }, action: { kind: 'reconnect' } },
    );
  }
  const packet = largest + PING_OVERHEAD;
  if (largest === payloads[0])
    return diagnosticCheck(
      'mtu',
      'ok',
      `packets up to ${packet} bytes (the tunnel's MTU) cross the tunnel`,
      null,
      { finding: 'fits', params: { bytes: packet } },
    );
  const suggested = suggestedMtu(packet);
  return diagnosticCheck(
    'mtu',
    'problem',
    `an MTU black hole: packets over ${packet} bytes are lost on the way to the node (the tunnel's MTU is ${deps.tunnel.mtu})`,
    `set a smaller MTU: netcli config set mtu ${suggested}`,
    {
      finding: 'black-hole',
      params: { bytes: packet, mtu: deps.tunnel.mtu, suggested },
      action: { kind: 'setting', key: 'mtu', value: String(suggested) },
    },
  );
}
