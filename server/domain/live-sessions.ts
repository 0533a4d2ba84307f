// The live session of each connected device: exists only while the session lives, never logged.
import type { Encryption, Protocol } from '../../contracts/index.js';

export interface LiveSession {
  deviceId: string;
  sessionId: string;
  nodeId: string;
  region: string;
  protocol: Protocol;
  cipher: Encryption;
  /** The client's latency to the node as sent with connect. */
  clientLatencyMs: number | null;
  /** The node's latest measurement of the tunnel. */
  nodeLatencyMs: number | null;
  /** The tunnel counts as up until then (epoch ms): an expiry, not a record of when. */
  upUntilMs: number | null;
}

export interface HandshakeReport {
  deviceId: string;
  latencyMs?: number | undefined;
}

/**
 * Live session state. Contract: implementations keep nothing after `delete` and write nothing
 * durable (memory in SQLite mode, an UNLOGGED table in PostgreSQL mode).
 */
export interface LiveSessions {
  get(deviceId: string): Promise<LiveSession | undefined>;
  put(session: LiveSession): Promise<void>;
  /** Returns whether a session existed. */
  delete(deviceId: string): Promise<boolean>;
  /**
   * Applies a node's heartbeat: the reported devices whose session is on this node are up
   * until `upUntilMs`; this node's other sessions are down. Returns the devices whose
   * up/down state changed.
   */
  applyHandshakes(
    nodeId: string,
    reports: readonly HandshakeReport[],
    upUntilMs: number,
    nowMs: number,
  ): Promise<string[]>;
  close(): Promise<void>;
}

export function isUp(session: LiveSession, nowMs: number): boolean {
  return session.upUntilMs !== null && session.upUntilMs > nowMs;
}
