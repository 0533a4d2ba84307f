// The web graphical mode's transport: the local API over HTTP on the page's own origin (the
// engine host serves this bundle and /api/v1 together; an HttpOnly cookie and the page key, sent
// as a header, authenticate), with the typed client generated from the route table, the event
// stream followed by the one follower (contracts/event-follower.ts) until the session is over,
// and the browsers signed in.
import {
  PAGE_KEY_HEADER,
  browserSessionRoutes,
  type BrowserSessionRoutes,
} from '../../contracts/browser-sessions.js';
import {
  faceEventOf,
  followEvents,
  type Backoff,
  type FollowedLink,
} from '../../contracts/event-follower.js';
import type { FacePayload, FaceRouteId, FaceValue } from '../../contracts/ipc.js';
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
import type {
  BrowserSessionsAccess,
  TransportState,
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
  /** Default: every face's (contracts/event-follower.ts's EVENT_STREAM_BACKOFF). */
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
  private readonly backoff: Backoff | undefined;
  private readonly onListenerError: (e: unknown) => void;
  readonly browserSessions: BrowserSessionsAccess;

  constructor(options: HttpTransportOptions) {
    const fetch = withPageKey(options.fetch, options.pageKey);
    this.client = createLocalClient({ baseUrl: options.baseUrl, fetch });
    this.sessions = createRouteClient(browserSessionRoutes, LOCAL_API_PREFIXES, {
      baseUrl: options.baseUrl,
      fetch,
    });
    this.backoff = options.backoff;
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
    let link: TransportState | undefined;
    const report = (next: TransportState) => {
      if (stop.signal.aborted || next === link) return;
      link = next;
      listener.connection(next);
    };
    /** The session is over: trying again cannot help, signing in again does. */
    const signedOut = (link: FollowedLink) =>
      link.state === 'down' && toFaceCallError(link.error).code === SIGNED_OUT;
    void followEvents(this.client, {
      signal: stop.signal,
      wait: sleepUnlessAborted,
      backoff: this.backoff,
      onEvent: (e) => listener.event(faceEventOf(e)),
      // Ended, broken, refused or unreadable: the same remedy (the follower opens it again).
      onLink: (link) =>
        report(link.state === 'up' ? 'up' : signedOut(link) ? 'signed-out' : 'down'),
      retry: (link) => !signedOut(link),
      // A listener's own exception must not break the stream.
      onHandlerError: this.onListenerError,
    });
    return () => stop.abort();
  }
}
