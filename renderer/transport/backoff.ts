// How long to wait before reopening a broken event stream: doubling from a short first wait
// up to a ceiling, so that a restarting engine is found quickly and a gone one is not hammered.

export interface Backoff {
  /** The wait before attempt `n` (0 = the first retry after a break). */
  delayMs(attempt: number): number;
}

export function exponentialBackoff(firstMs = 500, maxMs = 10_000): Backoff {
  return {
    delayMs: (attempt) => Math.min(maxMs, firstMs * 2 ** Math.max(0, Math.min(attempt, 30))),
  };
}
