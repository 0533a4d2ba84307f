// Token buckets, one per key (a prober's or a device's address) or a single one, on a clock the
// caller gives. Memory only: a key is held while its bucket is below full, which is all its rate
// limit needs to remember (a full bucket and none are the same), and forgotten at the next sweep.
// Bounded: when the table is full of keys still refilling, a new key is refused (fail closed).

/** How often owners sweep full buckets away: how long past its need an address may stay. */
export const SWEEP_MS = 10_000;
/** A table that is full is swept for room at most this often, however many new keys arrive. */
const FULL_SWEEP_MS = 100;

export interface BucketRate {
  /** Tokens a second on average. */
  perSecond: number;
  /** Tokens at most, which a quiet bucket refills to. */
  burst: number;
}

export interface KeyedRate extends BucketRate {
  /** Keys held at once. */
  maxKeys: number;
}

function checked<T extends object>(o: T): T {
  for (const [name, value] of Object.entries(o))
    if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
      throw new RangeError(`${name} is a number above 0 (got ${String(value)})`);
  return o;
}

/** A bucket's state: tokens left as of `atMs`. */
export interface Bucket {
  tokens: number;
  atMs: number;
}

function refill(b: Bucket, nowMs: number, r: BucketRate): void {
  b.tokens = Math.min(r.burst, b.tokens + (Math.max(0, nowMs - b.atMs) / 1000) * r.perSecond);
  b.atMs = Math.max(b.atMs, nowMs);
}

/** Takes one token from `b`; false: it has none (over its rate). */
function takeFrom(b: Bucket, nowMs: number, r: BucketRate): boolean {
  refill(b, nowMs, r);
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

function isFull(b: Bucket, nowMs: number, r: BucketRate): boolean {
  return b.tokens + (Math.max(0, nowMs - b.atMs) / 1000) * r.perSecond >= r.burst;
}

/** One bucket, e.g. a budget shared by all. */
export class TokenBucket {
  private readonly b: Bucket;

  constructor(private readonly r: BucketRate) {
    checked(r);
    this.b = { tokens: r.burst, atMs: -Infinity };
  }

  take(nowMs: number): boolean {
    return takeFrom(this.b, nowMs, this.r);
  }
}

/**
 * A bucket per key, each with state `S` of its owner's beside it (e.g. what the key holds
 * open). A key whose `S` says it is in use (`inUse`) is kept even with its bucket full.
 */
export class TokenBuckets<S extends object = object> {
  private readonly entries = new Map<string, S & Bucket>();
  private lastFullSweepMs = -Infinity;

  constructor(
    private readonly r: KeyedRate,
    /** The owner's state of a new key. */
    private readonly fresh: () => S = () => ({}) as S,
    private readonly inUse: (state: S) => boolean = () => false,
  ) {
    checked(r);
  }

  /** The key's entry, made with a full bucket if new; undefined: no room (fail closed). */
  entry(key: string, nowMs: number): (S & Bucket) | undefined {
    const found = this.entries.get(key);
    if (found) return found;
    if (this.entries.size >= this.r.maxKeys) {
      // A flood of new keys must not make every one of them walk the table.
      if (nowMs - this.lastFullSweepMs < FULL_SWEEP_MS) return undefined;
      this.lastFullSweepMs = nowMs;
      this.sweep(nowMs);
      if (this.entries.size >= this.r.maxKeys) return undefined;
    }
    const made = Object.assign(this.fresh(), { tokens: this.r.burst, atMs: nowMs });
    this.entries.set(key, made);
    return made;
  }

  /** The key's entry if it is held; never makes one. */
  held(key: string): (S & Bucket) | undefined {
    return this.entries.get(key);
  }

  /** Takes a token of `key`; false: it is over its rate, or there is no room for it. */
  take(key: string, nowMs: number): boolean {
    const e = this.entry(key, nowMs);
    return e !== undefined && takeFrom(e, nowMs, this.r);
  }

  /** Takes a token from an entry this table gave. */
  takeFrom(entry: Bucket, nowMs: number): boolean {
    return takeFrom(entry, nowMs, this.r);
  }

  /** Forgets the keys whose buckets are full again and that are not in use. */
  sweep(nowMs: number): void {
    for (const [key, e] of this.entries)
      if (!this.inUse(e) && isFull(e, nowMs, this.r)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
