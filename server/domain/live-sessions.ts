// The live session of each connected device: exists only while the session lives, never logged.
import type { Encryption, Protocol } from '../../contracts/index.js';

export interface LiveSession {
  deviceId: string;
  sessionId: string;
  nodeId: string;
  region: string;
  protocol: Protocol;
  cipher: Encryption;
  /**
   * The client's latency to the node: as sent with connect (measured outside the tunnel), or
   * as it last reported it through PUT /status/latency.
   */
  clientLatencyMs: number | null;
  /**
   * A reported client latency counts over the node's until then (epoch ms): an expiry, not a
   * record of when. null: nothing reported (the connect-time value counts only when the node
   * has measured nothing).
   */
  clientLatencyUntilMs: number | null;
  /** The node's measurement of the tunnel as of its last heartbeat (null: it had none). */
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
  /** The live sessions of these devices (those that have one), in no particular order. */
  getMany(deviceIds: readonly string[]): Promise<LiveSession[]>;
  put(session: LiveSession): Promise<void>;
  /** Returns whether a session existed. */
  delete(deviceId: string): Promise<boolean>;
  /**
   * The client's own latency report: kept on the device's session (only the one named, when
   * `sessionId` is given) and counting until `untilMs`. Returns whether a session took it.
   */
  reportClientLatency(
    deviceId: string,
    sessionId: string | undefined,
    latencyMs: number,
    untilMs: number,
  ): Promise<boolean>;
  /**
   * Applies a node's heartbeat: the reported devices whose session is on this node are up
   * until `upUntilMs`, with the node's latency as reported (none when absent); this node's other
   * sessions are down. Returns the devices whose shown state (`shownState`) changed.
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

/**
 * What a status says of a live session: connected only while the tunnel is up and a latency is
 * known (the spec's status carries "<n>ms" whenever it says connected); up but not measured yet,
 * or down, it is still connecting.
 */
export function shownState(session: LiveSession, nowMs: number): 'connected' | 'connecting' {
  return isUp(session, nowMs) && shownLatencyMs(session, nowMs) !== null
    ? 'connected'
    : 'connecting';
}

/**
 * The latency a status shows: the client's fresh report, else the node's measurement through
 * the tunnel, else what the client measured before connecting (or reported long ago).
 */
export function shownLatencyMs(session: LiveSession, nowMs: number): number | null {
  const reportFresh =
    session.clientLatencyMs !== null &&
    session.clientLatencyUntilMs !== null &&
    session.clientLatencyUntilMs > nowMs;
  if (reportFresh) return session.clientLatencyMs;
  return session.nodeLatencyMs ?? session.clientLatencyMs;
}
