// A read-mostly value kept in memory: reloaded after a short TTL, dropped at once on a local write.

/** Monotonic milliseconds: TTLs must not jump with the wall clock (or with a test's fake clock). */
export type Ticks = () => number;
export const monotonicMs: Ticks = () => performance.now();

export interface SnapshotOptions {
  /**
   * How long a loaded value is served. With several instances this bounds how stale a write
   * made on another instance can look here; writes made here are seen at once (`invalidate`).
   */
  ttlMs: number;
  now?: Ticks;
}

/**
 * Contract: after `invalidate()` returns, `get()` never resolves to a value loaded before that
 * call. Concurrent callers share one load (one query per TTL, not one per request).
 */
export class Snapshot<T> {
  private value: { data: T; expiresAt: number } | undefined;
  private loading: { generation: number; promise: Promise<T> } | undefined;
  /** Bumped by `invalidate`: a load started under an older generation is not kept or shared. */
  private generation = 0;
  private readonly now: Ticks;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly opts: SnapshotOptions,
  ) {
    this.now = opts.now ?? monotonicMs;
  }

  get(): Promise<T> {
    const now = this.now();
    if (this.value && now < this.value.expiresAt) return Promise.resolve(this.value.data);
    if (this.loading?.generation === this.generation) return this.loading.promise;
    const generation = this.generation;
    const startedAt = now;
    const promise = this.load().then(
      (data) => {
        if (this.generation === generation) {
          // Counted from the start of the load: the data is at least that old.
          this.value = { data, expiresAt: startedAt + this.opts.ttlMs };
        }
        if (this.loading?.promise === promise) this.loading = undefined;
        return data;
      },
      (error: unknown) => {
        // Failures are not kept: the next caller tries again.
        if (this.loading?.promise === promise) this.loading = undefined;
        throw error;
      },
    );
    this.loading = { generation, promise };
    return promise;
  }

  invalidate(): void {
    this.generation++;
    this.value = undefined;
  }
}
