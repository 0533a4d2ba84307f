// The web graphical mode's transport: the local API over HTTP on the page's own origin (the
// engine host serves this bundle and /api/v1 together; an HttpOnly cookie authenticates), with
// the typed client generated from the route table, and the event stream reopened with backoff.
import type { FaceEvent, FacePayload, FaceRouteId, FaceValue } from '../../contracts/ipc.js';
import { createLocalClient, type LocalClient } from '../../contracts/local-api.js';
import type { FetchLike } from '../../contracts/route-client.js';
import { sleepUnlessAborted } from '../../contracts/sleep.js';
import { exponentialBackoff, type Backoff } from './backoff.js';
import type { EngineLink, EngineListener, EngineTransport } from './engine-transport.js';
import { toFaceCallError } from './face-call-error.js';

/**
 * Calls that wait for the network or a tunnel: they answer only once it is done (a config
 * change may reconnect). The engine aborts what a client stops waiting for, so these wait as
 * long as netcli does; everything else keeps the client's default.
 */
const SLOW_CALLS: Partial<Record<FaceRouteId, number>> = {
  connect: 120_000,
  patchConfig: 120_000,
  setConfigKey: 120_000,
  init: 60_000,
  latencyCheck: 120_000,
  streamTest: 60_000,
  diagnose: 30_000,
  startTunnel: 120_000,
};

export interface HttpTransportOptions {
  /** The local API's root, e.g. `location.origin + '/api/v1'`. */
  baseUrl: string;
  fetch: FetchLike;
  backoff?: Backoff;
  /** Where a listener's own exception goes (it must not break the stream). */
  onListenerError?: (e: unknown) => void;
}

type AnyCall = (input: object) => Promise<unknown>;

export class HttpTransport implements EngineTransport {
  private readonly client: LocalClient;
  private readonly backoff: Backoff;
  private readonly onListenerError: (e: unknown) => void;

  constructor(options: HttpTransportOptions) {
    this.client = createLocalClient({ baseUrl: options.baseUrl, fetch: options.fetch });
    this.backoff = options.backoff ?? exponentialBackoff();
    this.onListenerError = options.onListenerError ?? ((e) => console.error(e));
  }

  async call<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceValue<K>> {
    const method = this.client[id] as unknown as AnyCall;
    const timeoutMs = SLOW_CALLS[id];
    try {
      const value = await method({ ...payload, ...(timeoutMs ? { timeoutMs } : {}) });
      return value as FaceValue<K>;
    } catch (e) {
      throw toFaceCallError(e);
    }
  }

  subscribe(listener: EngineListener): () => void {
    const stop = new AbortController();
    let link: EngineLink | undefined;
    const report = (next: EngineLink) => {
      if (stop.signal.aborted || next === link) return;
      link = next;
      this.deliver(() => listener.connection(next));
    };
    void this.follow(listener, report, stop.signal);
    return () => stop.abort();
  }

  /** Opens the stream, forwards its events, and reopens it when it ends or breaks. */
  private async follow(
    listener: EngineListener,
    report: (link: EngineLink) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let attempt = 0;
    while (!signal.aborted) {
      try {
        const stream = await this.client.events({ signal });
        report('up');
        for await (const e of stream) {
          if (signal.aborted) break;
          // The host sends the current status first: a stream that delivers is a good one.
          attempt = 0;
          const event: FaceEvent =
            e.event === 'status'
              ? { type: 'status', status: e.data }
              : { type: 'notice', notice: e.data };
          this.deliver(() => listener.event(event));
        }
      } catch {
        // Broken, refused or unreadable: the same remedy, below.
      }
      if (signal.aborted) return;
      report('down');
      await sleepUnlessAborted(this.backoff.delayMs(attempt++), signal);
    }
  }

  private deliver(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.onListenerError(e);
    }
  }
}
