// The seam between the engine's connect flow and the tunnels: what a tunnel needs to come up, and what a
// running one tells the engine. Implemented by engine/tunnel/manager.ts (WireGuard and Ferry, real OS
// effects) and by engine/tunnel/manager.fake.ts (unit tests of the connect flow).
import type { ConnectResponse, Transport } from '../../contracts/index.js';
import type { BurstResult } from './probe.js';
import type { TunnelHealth } from './session.js';

export type { BurstResult } from './probe.js';
export type { TunnelHealth } from './session.js';

/** Everything one tunnel needs: the control plane's connect answer and this device's key for it. */
export interface TunnelPlan {
  answer: ConnectResponse;
  /** Base64 private key of the protocol in `answer.protocol` (from the key store; never leaves the host). */
  privateKey: string;
  /**
   * Ferry only: TCP or TLS where UDP is blocked (the obfuscation setting, or the transport
   * autopilot); TLS goes to the node's TLS port with its server name in the hello.
   */
  transport?: Transport;
  /**
   * Ferry over TCP or TLS: race a UDP path to the node's Ferry port beside the stream (UDP first,
   * the stream 250 ms later); the first handshake answered picks the transport (`transport()`).
   */
  raceUdp?: boolean;
  /**
   * Send all traffic through the tunnel (the main tunnel), or only the given destinations (a
   * service tunnel). Split tunnelling and the kill switch are a later layer on top of this.
   */
  routes: { kind: 'all' } | { kind: 'only'; cidrs: string[] };
  /**
   * Interface name to create (unique per tunnel on this host, at most 15 characters): from
   * tunnelInterfaceName() in names.ts, whose prefix lets cleanupLeftovers() find it after a crash.
   */
  interfaceName: string;
  /**
   * How long up() may take before it gives up (node-unreachable or tunnel-timeout); default the
   * manager's (10 s). Obfuscation `auto` gives UDP about 2 s before it tries TCP.
   */
  timeoutMs?: number;
  /**
   * Seconds between keepalives instead of the answer's (Ferry: each carries a round trip, so the
   * main tunnel notices a silent node within seconds; at most the answer's own).
   */
  keepaliveSeconds?: number;
}

export type TunnelEvent =
  /** A fresh latency measurement through the tunnel (Ferry: keepalive RTT; WireGuard: a probe). */
  | { type: 'latency'; ms: number }
  /** The tunnel stopped carrying traffic (handshakes fail, the process or data-plane thread died). */
  | { type: 'lost'; reason: string }
  /** Traffic flows again after a loss, without a new connect. */
  | { type: 'restored' }
  /** Session keys rotated (for the status: cipher in effect). */
  | { type: 'rekey'; cipher: string };

export interface ActiveTunnel {
  readonly interfaceName: string;
  readonly protocol: ConnectResponse['protocol'];
  /** The transport it runs over: the plan's, or the one that won the plan's race. */
  transport(): Transport;
  /** The last latency measured through the tunnel, in ms; up() resolves only once there is one. */
  latencyMs(): number;
  on(listener: (e: TunnelEvent) => void): () => void;
  /** The bytes it carried so far (the transport watch's evidence); null when unreadable. */
  health(): Promise<TunnelHealth | null>;
  /**
   * Sends `count` echoes of `size` bytes to the node through the tunnel at once and counts the
   * answers (the transport watch's test of a trickle); null when it could not be sent.
   */
  burst(count: number, size: number): Promise<BurstResult | null>;
  /** Takes the tunnel down and removes every interface, route and rule it made. Idempotent. */
  close(): Promise<void>;
}

export interface TunnelManager {
  /**
   * Brings a tunnel up and resolves once traffic has crossed it (a measured round trip), or rejects
   * with a FerryError that says why not (after removing whatever it had made).
   */
  up(plan: TunnelPlan, signal?: AbortSignal): Promise<ActiveTunnel>;
  /** Removes what an earlier run left behind (a crash): interfaces, routes, rules with our names. */
  cleanupLeftovers(): Promise<void>;
}
