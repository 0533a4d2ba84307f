// Per-request abort signals that end with the request or at shutdown. Shutdown walks a set of
// open requests instead of each request listening on one shared signal: a shared signal with a
// listener per long poll or event stream grows without bound (and Node warns past ten).
import type { ServerResponse } from 'node:http';

/** Why a request's signal aborts, made once (abort() alone builds a DOMException each time). */
const RESPONSE_CLOSED = Object.freeze(new Error('the response is closed'));
const SHUTTING_DOWN = Object.freeze(new Error('the server is shutting down'));

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

  /**
   * Aborts when the client goes away before its answer is complete, or when the server stops.
   * Whoever listens removes its listener when its work ends (an answered long poll, a stream).
   */
  forRequest(res: ServerResponse): AbortSignal {
    const controller = new AbortController();
    if (this.stopping) {
      controller.abort(SHUTTING_DOWN);
      return controller.signal;
    }
    this.open.add(controller);
    res.once('close', () => {
      this.open.delete(controller);
      // A request answered in full has nothing left to stop; only one cut short (the client went
      // away) aborts. Aborting every request cost GET /health half its throughput (bench).
      if (!res.writableFinished) controller.abort(RESPONSE_CLOSED);
    });
    return controller.signal;
  }

  /** Shutdown: every open request's signal aborts (long polls answer, streams end). */
  abortAll(): void {
    this.stopping = true;
    const open = [...this.open];
    this.open.clear();
    for (const controller of open) controller.abort(SHUTTING_DOWN);
  }
}
