// What the manager needs from one protocol's tunnel (WireGuard through wireguard-go, Ferry through
// the native data plane) once its link exists: proof of traffic, health events, and an end.
import type { StreamOutcome, Transport } from '../../native/tunnel-types.js';
import type { TunnelEvent } from './tunnel.js';

/** A tunnel's totals since it came up (the transport watch's evidence): bytes both ways. */
export interface TunnelHealth {
  bytes: number;
}

export interface ProtocolSession {
  readonly interfaceName: string;
  /**
   * Resolves with the first round trip's time in ms once traffic has crossed the tunnel. Rejects
   * with a FerryError when the tunnel cannot carry anything (its process or thread died), and with
   * `signal.reason` when the signal aborts first.
   */
  waitForTraffic(signal: AbortSignal): Promise<number>;
  /** Whether the node has answered a handshake: tells node-unreachable from tunnel-timeout. */
  handshakeSeen(): boolean;
  /**
   * A stream transport's (TCP, TLS) last connection attempt as the data plane saw it (refused,
   * reset, silent, ...); null over UDP or before any attempt ended.
   */
  streamOutcome?(): StreamOutcome | null;
  /** The transport a race chose (null: no race, or not decided yet). */
  racedTransport?(): Transport | null;
  /** The totals so far; null when they cannot be read right now. */
  health(): Promise<TunnelHealth | null>;
  /**
   * From now on reports latency, lost, restored and rekey through `emit` (called once, after
   * waitForTraffic resolved). Nothing is emitted after close().
   */
  monitor(emit: (e: TunnelEvent) => void): void;
  /** Ends the protocol's side (process, threads); the link goes with it. Idempotent. */
  close(): Promise<void>;
}

/**
 * Settles as `work` does, or rejects with the signal's reason when it aborts first (the work goes
 * on unobserved: for steps that cannot be cancelled, such as a DNS lookup or a ping in flight).
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
