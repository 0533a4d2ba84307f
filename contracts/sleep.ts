// Waiting between retries (an event stream reopened with backoff): a timer that an abort ends
// early. No I/O: every face hands it to the event follower (event-follower.ts) as its wait.

/** Waits `ms`, or less when `signal` aborts (then resolves at once; the caller checks). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
