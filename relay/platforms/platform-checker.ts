// The relay's own check of each streaming platform of its table, through its own uplink: one
// platform at a time, each within a bounded time, the first round at start and then each
// platform every interval at its own slot (spread over the interval, not all at once), and a
// whole round at once when the control plane asks. The latest result per platform is kept in
// memory and goes out with every heartbeat. Logs name the platform and its verdict only: the
// probe's URL and answer are the platform's, and nothing here concerns a device.
import type { Logger } from 'pino';
import {
  sleepUnlessAborted,
  type PlatformCheckReport,
  type PlatformTable,
} from '../../contracts/index.js';
import {
  PROBE_TIMEOUT_MS,
  probePlatform,
  verifyPlatform,
  type ProbeFetch,
} from '../../platform/probes/platform-probe.js';

export const DEFAULT_PLATFORM_CHECK_SECONDS = 600;

export interface PlatformCheckerOptions {
  table: PlatformTable;
  /** Each platform is checked once per interval. */
  intervalMs: number;
  /** One check's whole exchange (default 10 s). */
  timeoutMs?: number | undefined;
  /** The transport, through the relay's own uplink (the relay's, not a tunnel's). */
  fetch: ProbeFetch;
  log: Logger;
}

/**
 * Contract: `run` checks one platform at a time; `results` and `requestRound` may be called at
 * any time (from the heartbeat) and never wait for a check.
 */
export class PlatformChecker {
  private readonly ids: readonly string[];
  private readonly latest = new Map<string, PlatformCheckReport>();
  /** When each platform is due next (epoch ms); none yet: it is in the first round. */
  private readonly due = new Map<string, number>();
  /** A whole round at once is wanted (the first, or the control plane asked). */
  private roundWanted = true;
  /** A whole round is under way: a request now is answered by it. */
  private inRound = false;
  private wake: (() => void) | undefined;

  constructor(private readonly o: PlatformCheckerOptions) {
    this.ids = Object.keys(o.table).sort();
  }

  /** The latest result of each platform checked so far, for the heartbeat. */
  results(): PlatformCheckReport[] {
    return this.ids.flatMap((id) => {
      const r = this.latest.get(id);
      return r ? [r] : [];
    });
  }

  /**
   * The control plane asks for every platform to be checked now. While a whole round is under
   * way it answers the request (a heartbeat may ask again before its results land).
   */
  requestRound(): void {
    if (this.inRound) return;
    this.roundWanted = true;
    this.wake?.();
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.roundWanted) {
        this.roundWanted = false;
        this.inRound = true;
        const started = Date.now();
        try {
          for (const id of this.ids) {
            if (signal.aborted) return;
            await this.check(id, signal);
          }
        } finally {
          this.inRound = false;
        }
        // The first round places each platform at its own slot of the interval.
        this.ids.forEach((id, i) => {
          if (!this.due.has(id))
            this.due.set(
              id,
              started + this.o.intervalMs + Math.floor((i * this.o.intervalMs) / this.ids.length),
            );
        });
        continue;
      }
      const next = this.nextDue();
      if (next === undefined) {
        await this.idle(signal, undefined);
        continue;
      }
      const wait = next.at - Date.now();
      if (wait > 0) {
        await this.idle(signal, wait);
        continue;
      }
      await this.check(next.id, signal);
      // The same slot next time; a check that ran late (a long round) does not shift the rest.
      let at = next.at + this.o.intervalMs;
      while (at <= Date.now()) at += this.o.intervalMs;
      this.due.set(next.id, at);
    }
  }

  private nextDue(): { id: string; at: number } | undefined {
    let best: { id: string; at: number } | undefined;
    for (const [id, at] of this.due) if (!best || at < best.at) best = { id, at };
    return best;
  }

  /** Waits `ms` (forever: undefined), or until a round is asked for, or the relay stops. */
  private async idle(signal: AbortSignal, ms: number | undefined): Promise<void> {
    if (this.roundWanted || signal.aborted) return;
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    // One signal for the sleep: the relay's stop, or the end of this wait (a wake-up).
    const local = new AbortController();
    const stop = () => local.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([woken, sleepUnlessAborted(ms ?? 2 ** 31 - 1, local.signal)]);
    } finally {
      signal.removeEventListener('abort', stop);
      local.abort();
      this.wake = undefined;
    }
  }

  private async check(id: string, signal: AbortSignal): Promise<void> {
    const def = this.o.table[id]!;
    const checkedAt = Math.floor(Date.now() / 1000);
    let result: PlatformCheckReport;
    try {
      const outcome = await probePlatform(def, {
        fetch: this.o.fetch,
        signal,
        timeoutMs: this.o.timeoutMs ?? PROBE_TIMEOUT_MS,
      });
      result = { platform: id, ...verifyPlatform(def, outcome), checked_at: checkedAt };
    } catch {
      // Only a stop cancels a check; what was known stays as it was.
      return;
    }
    const before = this.latest.get(id);
    this.latest.set(id, result);
    if (before?.verdict !== result.verdict || before?.region !== result.region) {
      this.o.log.info(
        { platform: id, verdict: result.verdict, catalogRegion: result.region },
        'streaming platform checked',
      );
    }
  }
}
