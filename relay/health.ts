// What the relay knows is wrong with its own data planes: peer updates that failed (with the
// reason and a running count), peers a data plane refused, and data planes that stopped. A plane
// with an open problem is reported `degraded` in every heartbeat, and the control plane gives
// the node no new sessions of that protocol until the problem is gone.
import type { Logger } from 'pino';
import type { Protocol } from '../contracts/index.js';

interface Problem {
  plane: Protocol;
  reason: string;
  /** Cleared only by a restart (the data plane stopped). */
  permanent: boolean;
}

export interface HealthCounters {
  /** Peer updates that failed, per data plane, since the relay started. */
  peerUpdateFailures: Record<Protocol, number>;
  /** Single peers a data plane (or the feed's parser) refused, since the relay started. */
  peersRefused: Record<Protocol, number>;
}

export class RelayHealth {
  /** Open problems by `${plane}:${what}` (what: the part of the relay that failed). */
  private readonly problems = new Map<string, Problem>();
  private readonly counts: HealthCounters = {
    peerUpdateFailures: { wireguard: 0, ferry: 0 },
    peersRefused: { wireguard: 0, ferry: 0 },
  };

  constructor(private readonly log: Logger) {}

  /**
   * A peer update of `plane` failed in `what`: counted, logged with its reason, and the plane is
   * degraded until `recovered(plane, what)`.
   */
  failed(
    plane: Protocol,
    what: string,
    reason: string,
    detail: Record<string, unknown> = {},
  ): void {
    const failures = ++this.counts.peerUpdateFailures[plane];
    const key = `${plane}:${what}`;
    if (this.problems.get(key)?.permanent) return;
    this.problems.set(key, { plane, reason, permanent: false });
    this.log.error(
      { plane, what, reason, failures, ...detail },
      'peer update failed: the node reports this data plane degraded and retries',
    );
  }

  /** `plane` cannot serve again without a restart (its data plane stopped or was stopped). */
  stopped(plane: Protocol, what: string, reason: string): void {
    const failures = ++this.counts.peerUpdateFailures[plane];
    this.problems.set(`${plane}:${what}`, { plane, reason, permanent: true });
    this.log.error(
      { plane, what, reason, failures },
      'data plane stopped: it carries no traffic until the relay restarts',
    );
  }

  recovered(plane: Protocol, what: string): void {
    const key = `${plane}:${what}`;
    const problem = this.problems.get(key);
    if (!problem || problem.permanent) return;
    this.problems.delete(key);
    this.log.info(
      { plane, what, failures: this.counts.peerUpdateFailures[plane] },
      'peer updates apply again',
    );
  }

  /** One device's peer was refused (it is kept off that data plane, not let in on old terms). */
  refused(plane: Protocol, deviceId: string, reason: string): void {
    const refused = ++this.counts.peersRefused[plane];
    this.log.warn(
      { plane, device: deviceId, reason, refused },
      'peer refused: the device cannot use this data plane',
    );
  }

  /** Data planes with an open problem. */
  degraded(): Protocol[] {
    return [...new Set([...this.problems.values()].map((p) => p.plane))];
  }

  /** The open problems' reasons, for tests and diagnostics. */
  reasons(plane: Protocol): string[] {
    return [...this.problems.values()].filter((p) => p.plane === plane).map((p) => p.reason);
  }

  counters(): HealthCounters {
    return {
      peerUpdateFailures: { ...this.counts.peerUpdateFailures },
      peersRefused: { ...this.counts.peersRefused },
    };
  }
}

/** An error's message, for logs and health reasons. */
export function reasonOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
