// Waiting between retries or rounds: a timer that an abort ends early (at once when it already
// has). No I/O: the faces hand it to the event follower as its wait; the relay waits with it.

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
