// One operation of the engine at a time (connect, disconnect, sign-in, a failover's attempt):
// each waits for the one before, and a newer one aborts an older connect still under way.
import { FerryError } from './errors.js';

export class OperationQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #current: AbortController | null = null;

  run<T>(task: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    // A connect still under way is superseded by whatever comes next.
    this.#current?.abort(new FerryError('superseded', 'a newer request replaced this one'));
    const controller = new AbortController();
    this.#current = controller;
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    else outer?.addEventListener('abort', onOuter, { once: true });
    const run = this.#tail.then(async () => {
      try {
        return await task(controller.signal);
      } finally {
        outer?.removeEventListener('abort', onOuter);
        if (this.#current === controller) this.#current = null;
      }
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }
}

/** Throws what aborted an operation: the newer request's FerryError, or `superseded`. */
export function throwIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof FerryError) throw reason;
  throw new FerryError('superseded', 'the request was cancelled');
}
