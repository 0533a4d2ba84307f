// Rate limits for the probe responder: a token bucket per source address, then one for all,
// held in memory only and never logged (no-logs rule). When its table is full of busy sources
// a new source is refused: the responder fails closed rather than grow without bound.

export interface RateOptions {
  /** Probes per second a source may send on average, and in a burst. */
  perSourcePerSecond: number;
  perSourceBurst: number;
  /** Probes per second the responder answers in all. */
  totalPerSecond: number;
  totalBurst: number;
  maxSources: number;
}

export const DEFAULT_RATES: RateOptions = {
  perSourcePerSecond: 20,
  perSourceBurst: 40,
  totalPerSecond: 5_000,
  totalBurst: 10_000,
  maxSources: 65_536,
};

interface Bucket {
  tokens: number;
  atMs: number;
}

export class SourceLimiter {
  private readonly sources = new Map<string, Bucket>();
  private readonly total: Bucket;

  constructor(private readonly o: RateOptions = DEFAULT_RATES) {
    this.total = { tokens: o.totalBurst, atMs: 0 };
  }

  /**
   * Takes a token for one datagram from `source`; false: drop it. The source's own bucket is
   * charged first: a source over its rate must not spend the budget of all, or one flooding
   * source would starve every other prober.
   */
  take(source: string, nowMs: number): boolean {
    let bucket = this.sources.get(source);
    if (!bucket) {
      if (this.sources.size >= this.o.maxSources && !this.sweep(nowMs)) return false;
      bucket = { tokens: this.o.perSourceBurst, atMs: nowMs };
      this.sources.set(source, bucket);
    }
    if (!refillAndTake(bucket, nowMs, this.o.perSourcePerSecond, this.o.perSourceBurst))
      return false;
    if (refillAndTake(this.total, nowMs, this.o.totalPerSecond, this.o.totalBurst)) return true;
    // Dropped for the others' load, not its own: the source keeps its token.
    bucket.tokens += 1;
    return false;
  }

  get trackedSources(): number {
    return this.sources.size;
  }

  /** Forgets sources whose buckets have refilled (idle ones); true if room was made. */
  private sweep(nowMs: number): boolean {
    for (const [source, b] of this.sources) {
      const tokens = b.tokens + ((nowMs - b.atMs) / 1000) * this.o.perSourcePerSecond;
      if (tokens >= this.o.perSourceBurst) this.sources.delete(source);
    }
    return this.sources.size < this.o.maxSources;
  }
}

function refillAndTake(b: Bucket, nowMs: number, perSecond: number, burst: number): boolean {
  b.tokens = Math.min(burst, b.tokens + (Math.max(0, nowMs - b.atMs) / 1000) * perSecond);
  b.atMs = nowMs;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}
