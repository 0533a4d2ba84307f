// Whether a tunnel over UDP is being throttled (the censor's trickle: UDP flows to foreign hosts
// cut to some kbit/s after a few seconds, as reported against Hysteria2 in China). Two steps:
// the tunnel's own byte count, read about once a second, raises a suspicion when it stays in the
// trickle's band (busy, and no second faster than a few hundred kbit/s); a burst of echoes to the node
// through the tunnel then decides: a trickle loses most of a burst (a policer drops what is over
// its rate), any path a user would keep loses next to nothing. Measured behind the test
// internet's censor: the tunnel's probes of one echo a second all got through the trickle, so
// loss in the everyday probes says nothing; the burst does.
import type { BurstResult, TunnelHealth } from '../tunnel/tunnel.js';

export interface ThrottleRules {
  /** Readings (about one a second) judged together. */
  windowSamples: number;
  /** The tunnel moved at most this many bytes in any second of the window: a trickle. */
  trickleBytesPerSecond: number;
  /** And at least this many: there was traffic to carry (keepalives alone are ~100 B/s). */
  demandBytesPerSecond: number;
  /** The burst that decides: its echoes and their size. */
  burstCount: number;
  burstSize: number;
  /** The share of the burst lost at least for a throttle. */
  burstLossAtLeast: number;
}

export const DEFAULT_THROTTLE_RULES: ThrottleRules = {
  windowSamples: 8,
  // 256 kbit/s: four times the trickle the censors measured (64 kbit/s), far below any
  // broadband UDP a user would keep.
  trickleBytesPerSecond: 32_000,
  demandBytesPerSecond: 1_500,
  // 20 echoes of 1000 bytes in 0.2 s: 100 kB/s each way for a moment.
  burstCount: 20,
  burstSize: 1_000,
  burstLossAtLeast: 0.5,
};

/** What one window of readings showed. */
export interface ThrottleWindow {
  bytesPerSecond: number;
  /** Busy within the trickle's band: worth a burst. */
  suspect: boolean;
}

export class ThrottleJudge {
  readonly rules: ThrottleRules;
  #last: TunnelHealth | null = null;
  readonly #window: number[] = [];

  /** `secondsPerSample`: how far apart the readings are (about a second in the engine). */
  constructor(
    rules: Partial<ThrottleRules> = {},
    private readonly secondsPerSample = 1,
  ) {
    this.rules = { ...DEFAULT_THROTTLE_RULES, ...rules };
  }

  /**
   * Takes the tunnel's totals of now (about a reading after the last) and judges the window that
   * ends here; null until the window is full. Totals that went back (a new tunnel) start over.
   */
  feed(totals: TunnelHealth): ThrottleWindow | null {
    const last = this.#last;
    this.#last = { ...totals };
    if (last === null || totals.bytes < last.bytes) {
      this.#window.length = 0;
      return null;
    }
    const r = this.rules;
    this.#window.push(totals.bytes - last.bytes);
    if (this.#window.length > r.windowSamples) this.#window.shift();
    if (this.#window.length < r.windowSamples) return null;
    const sum = this.#window.reduce((a, b) => a + b, 0);
    const bytesPerSecond = sum / (this.#window.length * this.secondsPerSample);
    // No reading faster than the trickle: the end of a fast download is not one.
    const fastest = Math.max(...this.#window) / this.secondsPerSample;
    return {
      bytesPerSecond,
      suspect: fastest <= r.trickleBytesPerSecond && bytesPerSecond >= r.demandBytesPerSecond,
    };
  }

  /** Whether a burst's answers say throttled (a burst that could not be sent says nothing). */
  throttledBy(burst: BurstResult | null): boolean {
    if (burst === null || burst.sent < this.rules.burstCount / 2) return false;
    return (burst.sent - burst.answered) / burst.sent >= this.rules.burstLossAtLeast;
  }
}
