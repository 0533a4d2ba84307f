// Which transports a connect tries, in which order and for how long: the transport autopilot's
// plan (obfuscation auto) or the one the setting names (off: UDP; on and tcp: Ferry over TCP;
// tls: Ferry inside TLS). The autopilot starts with what worked on this network before, then
// the fastest (UDP), then the one that looks like the web (TLS), then Ferry over TCP. Ferry races
// UDP and its first stream transport in one session (UDP with a head start: where it gets
// through nothing else goes out); WireGuard has no TCP or TLS: Ferry stands in for it (a second
// connect answer, for Ferry).
import {
  FerryError,
  type ConnectResponse,
  type ObfuscationMode,
  type Protocol,
  type Transport,
  type TransportReason,
} from '../../contracts/index.js';

export interface TransportAttempt {
  protocol: Protocol;
  transport: Transport;
  /** Ferry over TCP or TLS: race UDP beside it in the same session (the first answered wins). */
  race?: 'udp';
  /** How long this attempt may take before the next one is tried (undefined: the whole limit). */
  timeoutMs?: number;
}

export interface TransportPlan {
  attempts: TransportAttempt[];
  /** `setting`: the obfuscation setting named the transport; `autopilot`: obfuscation auto. */
  by: 'setting' | 'autopilot';
  /** The obfuscation setting the plan follows. */
  obfuscation: ObfuscationMode;
  /** What worked on this network before (the plan's first attempt then). */
  remembered: Transport | null;
  /** A faster transport tried first again while connected (the plan's first attempt then). */
  retried: Transport | null;
  /** What the tunnel this plan replaces ran into (a switch away from a throttled UDP). */
  seen: TransportReason['blocked'];
}

/**
 * A change of transport while connected (engine/connection/transport-watch.ts): UDP left out
 * after the tunnel over it was throttled, or UDP tried first again now and then.
 */
export type TransportChange =
  { kind: 'leave-udp'; seen: TransportReason['blocked'] } | { kind: 'retry-udp' };

/** About how long UDP gets under `auto` before the next transport is tried (design.md: "~2 s"). */
export const UDP_ATTEMPT_MS = 2_500;
/** How long a TCP or TLS attempt gets under `auto` before the next one is tried. */
export const STREAM_ATTEMPT_MS = 4_000;

/**
 * The protocol a connect asks the control plane for: Ferry at once when the tunnel will start
 * with Ferry anyway (a TCP or TLS setting, or the autopilot remembering one for this network),
 * which spares WireGuard's answer that would not be used; else the user's.
 */
export function connectProtocol(
  asked: Protocol,
  obfuscation: ObfuscationMode,
  remembered: Transport | null,
  change?: TransportChange,
): Protocol {
  if (asked === 'ferry' || obfuscation === 'off') return asked;
  if (obfuscation !== 'auto' || change?.kind === 'leave-udp') return 'ferry';
  if (change?.kind === 'retry-udp') return asked;
  return remembered === 'tcp' || remembered === 'tls' ? 'ferry' : asked;
}

/** The port of a node that a protocol and transport use (TLS: the node's TLS port). */
export function transportPort(
  node: ConnectResponse['node'],
  protocol: Protocol,
  transport: Transport,
): number {
  if (protocol === 'wireguard') return node.wireguard_port;
  return transport === 'tls' ? node.tls_port! : node.ferry_port!;
}

/** The transports a node offers (from a connect answer's node). */
export function nodeTransports(node: ConnectResponse['node']): Set<Transport> {
  const ferry = node.ferry_port !== null && node.ferry_public_key !== null;
  const offered = new Set<Transport>(['udp']);
  if (ferry) offered.add('tcp');
  if (ferry && node.tls_port != null && node.tls_server_name != null) offered.add('tls');
  return offered;
}

export interface PlanInput {
  protocol: Protocol;
  node: ConnectResponse['node'];
  obfuscation: ObfuscationMode;
  /** What worked on this network before (null: nothing known). */
  remembered: Transport | null;
  udpAttemptMs?: number;
  streamAttemptMs?: number;
  /** A change of transport while connected (autopilot only). */
  change?: TransportChange;
}

/** The autopilot's order before what it remembers: fastest first, then the web's look-alike. */
const AUTOPILOT_ORDER: readonly Transport[] = ['udp', 'tls', 'tcp'];

export function transportPlan(input: PlanInput): TransportPlan {
  const { protocol, node, obfuscation } = input;
  const offered = nodeTransports(node);
  const attempt = (transport: Transport): TransportAttempt => ({
    protocol: transport === 'udp' ? protocol : 'ferry',
    transport,
  });
  if (obfuscation !== 'auto') {
    const wanted: Transport = obfuscation === 'off' ? 'udp' : obfuscation === 'tls' ? 'tls' : 'tcp';
    const chosen = (t: Transport): TransportPlan => ({
      attempts: [attempt(t)],
      by: 'setting',
      obfuscation,
      remembered: null,
      retried: null,
      seen: [],
    });
    if (offered.has(wanted)) return chosen(wanted);
    // WireGuard on a node without Ferry has UDP only (as before obfuscation had values).
    if (wanted === 'tcp' && protocol === 'wireguard' && !offered.has('tcp')) return chosen('udp');
    throw new FerryError(
      'not-supported',
      `node ${node.id} offers no ${wanted === 'tls' ? 'TLS' : 'TCP'} transport: set obfuscation to auto, or pick another region`,
    );
  }
  const change = input.change;
  const retried = change?.kind === 'retry-udp' ? ('udp' as const) : null;
  const remembered =
    retried === null && input.remembered !== null && offered.has(input.remembered)
      ? input.remembered
      : null;
  const first = retried ?? remembered;
  let order = [...new Set([...(first ? [first] : []), ...AUTOPILOT_ORDER])].filter((t) =>
    offered.has(t),
  );
  // A throttled UDP is left out while another transport is offered.
  if (change?.kind === 'leave-udp' && order.some((t) => t !== 'udp'))
    order = order.filter((t) => t !== 'udp');
  // Ferry starting with UDP races it beside the first stream transport (a UDP tried again
  // while connected stays alone: it is tried, not raced).
  const race =
    protocol === 'ferry' && order[0] === 'udp' && order.length > 1 && change === undefined;
  if (race) order = order.slice(1);
  const limit = (t: Transport) =>
    t === 'udp'
      ? (input.udpAttemptMs ?? UDP_ATTEMPT_MS)
      : (input.streamAttemptMs ?? STREAM_ATTEMPT_MS);
  return {
    attempts: order.map((t, i) => ({
      ...attempt(t),
      ...(race && i === 0 ? { race: 'udp' as const } : {}),
      ...(i === order.length - 1 ? {} : { timeoutMs: limit(t) }),
    })),
    by: 'autopilot',
    obfuscation,
    remembered,
    retried,
    seen: change?.kind === 'leave-udp' ? change.seen : [],
  };
}
