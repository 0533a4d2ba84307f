// The web graphical mode's transport: the local API over HTTP on the page's own origin (the
// engine host serves this bundle and /api/v1 together; an HttpOnly cookie and the page key, sent
// as a header, authenticate), with the typed client generated from the route table, the event
// stream reopened with backoff until the session is over, and the browsers signed in.
import {
  PAGE_KEY_HEADER,
  browserSessionRoutes,
  type BrowserSessionRoutes,
} from '../../contracts/browser-sessions.js';
import type { FaceEvent, FacePayload, FaceRouteId, FaceValue } from '../../contracts/ipc.js';
import {
  LOCAL_API_PREFIXES,
  createLocalClient,
  type LocalClient,
} from '../../contracts/local-api.js';
import {
  createRouteClient,
  type FetchLike,
  type RouteClient,
} from '../../contracts/route-client.js';
import { sleepUnlessAborted } from '../../contracts/sleep.js';
import { exponentialBackoff, type Backoff } from './backoff.js';
import type {
  BrowserSessionsAccess,
  EngineLink,
  EngineListener,
  EngineTransport,
} from './engine-transport.js';
import { toFaceCallError } from './face-call-error.js';

export interface HttpTransportOptions {
  /** The local API's root, e.g. `location.origin + '/api/v1'`. */
  baseUrl: string;
  fetch: FetchLike;
  /**
   * The page key of this tab's session (page-key.ts), sent with every request: the cookie alone
   * opens nothing. Without one the host refuses every call and the page is signed out.
   */
  pageKey?: string | undefined;
  backoff?: Backoff;
  /** Where a listener's own exception goes (it must not break the stream). */
  onListenerError?: (e: unknown) => void;
}

type AnyCall = (input: object) => Promise<unknown>;

/** The answer to a request whose session is over (or that has none). */
const SIGNED_OUT = 'unauthorized';

/** `fetch` with the page key on every request. */
function withPageKey(fetch: FetchLike, pageKey: string | undefined): FetchLike {
  if (pageKey === undefined) return fetch;
  return (url, init) => {
    const headers = new Headers(init.headers);
    headers.set(PAGE_KEY_HEADER, pageKey);
    return fetch(url, { ...init, headers });
  };
}

export class HttpTransport implements EngineTransport {
  private readonly client: LocalClient;
  private readonly sessions: RouteClient<BrowserSessionRoutes>;
  private readonly backoff: Backoff;
  private readonly onListenerError: (e: unknown) => void;
  readonly browserSessions: BrowserSessionsAccess;

  constructor(options: HttpTransportOptions) {
    const fetch = withPageKey(options.fetch, options.pageKey);
    this.client = createLocalClient({ baseUrl: options.baseUrl, fetch });
    this.sessions = createRouteClient(browserSessionRoutes, LOCAL_API_PREFIXES, {
      baseUrl: options.baseUrl,
      fetch,
    });
    this.backoff = options.backoff ?? exponentialBackoff();
    this.onListenerError = options.onListenerError ?? ((e) => console.error(e));
    this.browserSessions = {
      list: async () => {
        try {
          return (await this.sessions.listBrowserSessions()).sessions;
        } catch (e) {
          throw toFaceCallError(e);
        }
      },
      end: async (id) => {
        try {
          await this.sessions.endBrowserSession({ params: { id } });
        } catch (e) {
          throw toFaceCallError(e);
        }
      },
    };
  }

  async call<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceValue<K>> {
    const method = this.client[id] as unknown as AnyCall;
    try {
      // How long it may take is the route's (the local API's route table).
      const value = await method(payload);
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
      } catch (e) {
        // The session is over: trying again cannot help, signing in again does.
        if (toFaceCallError(e).code === SIGNED_OUT && !signal.aborted) {
          report('signed-out');
          return;
        }
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
