// Tells the control plane the latency this client measures through its tunnel, so that its
// GET /status says "<n>ms" too: at most one report per interval (the control plane counts one
// as fresh for CLIENT_LATENCY_FRESH_SECONDS), the newest value when the interval comes round.
import { CLIENT_LATENCY_FRESH_SECONDS } from '../../contracts/index.js';

/** Reports well inside the freshness window, so one lost report does not let it lapse. */
export const REPORT_INTERVAL_MS = (CLIENT_LATENCY_FRESH_SECONDS * 1000) / 3;

/** A latency as it is reported: ms to a tenth (the report's and the check-in's). */
export function reportedLatency(ms: number): number {
  return Math.round(ms * 10) / 10;
}

export type SendLatency = (latencyMs: number, sessionId: string) => Promise<unknown>;

export class LatencyReporter {
  #pending: { ms: number; sessionId: string } | null = null;
  #lastSent = -Infinity;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(
    private readonly send: SendLatency,
    private readonly intervalMs = REPORT_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A new measurement: sent now when the last report is old enough, else at the next turn. */
  measured(ms: number, sessionId: string): void {
    if (this.#stopped) return;
    this.#pending = { ms, sessionId };
    const wait = this.#lastSent + this.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), wait).unref();
  }

  /** A report went with another call (the connect's check-in): the next waits its interval. */
  reportedNow(): void {
    this.#lastSent = this.now();
  }

  /** No more reports (the tunnel went); one scheduled is dropped. */
  stop(): void {
    this.#stopped = true;
    this.#pending = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  private flush(): void {
    this.#timer = null;
    const next = this.#pending;
    if (!next || this.#stopped) return;
    this.#pending = null;
    this.#lastSent = this.now();
    // A lost report is harmless: the control plane falls back to the node's measurement.
    this.send(reportedLatency(next.ms), next.sessionId).catch(() => undefined);
  }
}
