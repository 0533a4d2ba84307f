// Per-request abort signals that end with the request or at shutdown. Shutdown walks a set of
// open requests instead of each request listening on one shared signal: a shared signal with a
// listener per long poll or event stream grows without bound (and Node warns past ten).
import type { ServerResponse } from 'node:http';

export class RequestSignals {
  private readonly open = new Set<AbortController>();
  private stopping = false;

  /** True from `abortAll` on: new requests are refused, answers close their connections. */
  get closing(): boolean {
    return this.stopping;
  }

  /** How many requests hold a signal now (for tests and diagnostics). */
  get size(): number {
    return this.open.size;
  }

  /** Aborts when the response is done or the client goes away, or when the server stops. */
  forRequest(res: ServerResponse): AbortSignal {
    const controller = new AbortController();
    if (this.stopping) {
      controller.abort();
      return controller.signal;
    }
    this.open.add(controller);
    res.once('close', () => {
      this.open.delete(controller);
      controller.abort();
    });
    return controller.signal;
  }

  /** Shutdown: every open request's signal aborts (long polls answer, streams end). */
  abortAll(): void {
    this.stopping = true;
    const open = [...this.open];
    this.open.clear();
    for (const controller of open) controller.abort();
  }
}
