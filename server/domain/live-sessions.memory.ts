// Live sessions held in process memory (SQLite mode, and the domain's tests): gone with the
// session or the process. Beside its port: it keeps no store, and its change test is shownState.
import {
  shownState,
  type HandshakeReport,
  type LiveSession,
  type LiveSessions,
} from './live-sessions.js';

export class MemoryLiveSessions implements LiveSessions {
  private readonly byDevice = new Map<string, LiveSession>();

  async get(deviceId: string): Promise<LiveSession | undefined> {
    const s = this.byDevice.get(deviceId);
    return s && { ...s };
  }

  async getMany(deviceIds: readonly string[]): Promise<LiveSession[]> {
    return deviceIds.flatMap((id) => {
      const s = this.byDevice.get(id);
      return s ? [{ ...s }] : [];
    });
  }

  async put(session: LiveSession): Promise<void> {
    this.byDevice.set(session.deviceId, { ...session });
  }

  async delete(deviceId: string): Promise<boolean> {
    return this.byDevice.delete(deviceId);
  }

  async reportClientLatency(
    deviceId: string,
    sessionId: string | undefined,
    latencyMs: number,
    untilMs: number,
  ): Promise<boolean> {
    const s = this.byDevice.get(deviceId);
    if (!s || (sessionId !== undefined && s.sessionId !== sessionId)) return false;
    s.clientLatencyMs = latencyMs;
    s.clientLatencyUntilMs = untilMs;
    return true;
  }

  async applyHandshakes(
    nodeId: string,
    reports: readonly HandshakeReport[],
    upUntilMs: number,
    nowMs: number,
  ): Promise<string[]> {
    const reported = new Map(reports.map((r) => [r.deviceId, r]));
    const changed: string[] = [];
    for (const s of this.byDevice.values()) {
      if (s.nodeId !== nodeId) continue;
      const before = shownState(s, nowMs);
      const report = reported.get(s.deviceId);
      // Each heartbeat says what the node measures now: no value, no latency (never a stale one).
      s.nodeLatencyMs = report?.latencyMs ?? null;
      s.upUntilMs = report ? upUntilMs : null;
      if (before !== shownState(s, nowMs)) changed.push(s.deviceId);
    }
    return changed;
  }

  async close(): Promise<void> {
    this.byDevice.clear();
  }
}
