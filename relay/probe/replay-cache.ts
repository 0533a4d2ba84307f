// Remembers the nonces of accepted probes for as long as their timestamps are fresh, so that a
// recorded probe sent again gets no answer. Bounded: when full it refuses (fails closed).

/** Nonces are kept in buckets by their probe's timestamp; a bucket goes once it is stale. */
const BUCKET_MS = 5_000;

export class ReplayCache {
  private readonly buckets = new Map<number, Set<string>>();
  private size = 0;

  constructor(
    /** The freshness window: a probe older than this is refused before it gets here. */
    private readonly windowMs: number,
    private readonly maxEntries = 200_000,
  ) {}

  /**
   * Records `nonce` of a fresh probe stamped `timestampMs`; false when it was seen before or
   * the cache is full (the probe then gets no answer). A replay carries the same timestamp as
   * the original (the MAC covers both), so only its own bucket needs a look.
   */
  admit(nonce: Uint8Array, timestampMs: number, nowMs: number): boolean {
    this.prune(nowMs);
    const bucket = Math.floor(timestampMs / BUCKET_MS);
    const id = Buffer.from(nonce.buffer, nonce.byteOffset, nonce.byteLength).toString('latin1');
    let set = this.buckets.get(bucket);
    if (set?.has(id)) return false;
    if (this.size >= this.maxEntries) return false;
    if (!set) {
      set = new Set();
      this.buckets.set(bucket, set);
    }
    set.add(id);
    this.size++;
    return true;
  }

  get entries(): number {
    return this.size;
  }

  private prune(nowMs: number): void {
    // A bucket whose newest timestamp is older than the window holds only stale probes.
    const oldest = Math.floor((nowMs - this.windowMs) / BUCKET_MS) - 1;
    for (const [bucket, set] of this.buckets) {
      if (bucket > oldest) continue;
      this.size -= set.size;
      this.buckets.delete(bucket);
    }
  }
}
