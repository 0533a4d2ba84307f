// The engine's HTTP transport to the control plane: fetch over a connection pool that the engine
// drops whenever the routes change (a tunnel came or went). A kept-alive connection opened
// before a full tunnel would otherwise carry on with the old source address through the tunnel
// and hang; browsers drop their pools on a network change for the same reason. Every connection
// leaves from a socket with the engine's control-plane mark (CONTROL_FWMARK), which is what the kill switch lets
// out to the control plane: no other process gets through by that allowance. How a connection
// reaches the control plane (straight, through a relay, through a proxy) is its route's business
// (engine/api-access); the TLS to the control plane is always this transport's, end to end.
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import {
  Agent,
  fetch as undiciFetch,
  type buildConnector,
  type RequestInit as UndiciRequestInit,
} from 'undici';
import type { FetchLike } from '../contracts/index.js';
import { trustContext } from '../platform/tls/trust-context.js';
import type { StreamRoute } from './api-access/api-access.js';
import { markedOpeners } from './api-access/openers.js';
import { openMarkedSocket, type MarkedSocketOpener } from './os/marked-socket.js';

export interface ControlTransport {
  fetch: FetchLike;
  /** Drops every pooled connection; calls under way fail and the next ones open new ones. */
  reset(): void;
  /**
   * Trusts these CA certificates (PEM) for https besides the system's (null: the system's
   * only). A change drops the pool: no connection verified under other trust is reused.
   */
  trust(ca: string | null): void;
  /** Reaches the control plane by this route from now on (drops the pool). */
  useRoute(route: StreamRoute): void;
  close(): Promise<void>;
}

export interface ControlTransportOptions {
  /** CA certificates (PEM) trusted for https besides the system's (null: the system's only). */
  ca?: string | null;
  /**
   * Makes the marked sockets (the seam; default: the native addon's). There is no unmarked
   * fallback: a socket that cannot be marked fails the call.
   */
  openSocket?: MarkedSocketOpener;
  /** How each connection reaches the control plane (API access methods; default: direct). */
  route?: StreamRoute;
}

/**
 * How long one connection (its route's methods, TCP and TLS) may take before the call fails:
 * room for auto's direct attempt and two relays (engine/api-access).
 */
const CONNECT_TIMEOUT_MS = 20_000;
/** TLS sessions kept to resume (one per control plane's host and port). */
const MAX_SESSIONS = 8;

/** Straight to the host's addresses from the engine's marked sockets (no API access methods). */
function directRoute(open: MarkedSocketOpener): StreamRoute {
  const openers = markedOpeners(open);
  return async (target, finish, signal) =>
    finish(await openers.direct(target.host, target.port, signal), signal);
}

/**
 * undici's connector over the route's streams: for https, TLS over the stream with the host
 * name checked against the system's roots and the configured CA (a TLS failure fails that
 * method, and the route tries the next).
 */
function routedConnector(
  route: () => StreamRoute,
  ca: () => string | null,
): buildConnector.connector {
  // TLS sessions to resume, per host and port, under the trust they were verified with: a connect
  // opens several connections (the pool is dropped whenever the routes change), and a resumed
  // handshake skips the certificate chain and a signature.
  const sessions = new Map<string, Buffer>();
  let sessionsTrust: string | null = null;
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
    const https = opts.protocol === 'https:';
    const port = Number(opts.port) || (https ? 443 : 80);
    const attempts = new AbortController();
    let done = false;
    const finished = (error: Error | null, socket?: Duplex) => {
      if (done) {
        socket?.destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      attempts.abort(error ?? new Error('connected'));
      if (error) callback(error, null);
      else callback(null, socket as Socket);
    };
    const timer = setTimeout(() => {
      const e = Object.assign(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`), {
        code: 'UND_ERR_CONNECT_TIMEOUT',
      });
      finished(e);
    }, CONNECT_TIMEOUT_MS);
    timer.unref();
    const finish = (raw: Duplex, signal: AbortSignal): Promise<Duplex> => {
      if (!https) return Promise.resolve(raw);
      // Without a servername an IP literal's certificate is checked by its address.
      const servername = isIP(host) === 0 ? (opts.servername ?? host) : undefined;
      const extra = ca();
      if (extra !== sessionsTrust) {
        sessions.clear();
        sessionsTrust = extra;
      }
      const key = `${host}:${port}`;
      let tls: TLSSocket;
      try {
        const secureContext = trustContext(extra);
        const session = sessions.get(key);
        tls = tlsConnect({
          socket: raw,
          host,
          ...(servername ? { servername } : {}),
          ALPNProtocols: ['http/1.1'],
          ...(secureContext ? { secureContext } : {}),
          ...(session ? { session } : {}),
        });
      } catch (e) {
        // A CA Node cannot load, say: the call fails, the stream goes with it.
        raw.destroy();
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      tls.on('session', (ticket: Buffer) => {
        if (sessionsTrust !== extra) return;
        sessions.delete(key);
        sessions.set(key, ticket);
        // A control plane or two: a handful of entries, the oldest going first.
        for (const old of sessions.keys()) if (sessions.size > MAX_SESSIONS) sessions.delete(old);
      });
      return new Promise((resolve, reject) => {
        const fail = (e: Error) => {
          signal.removeEventListener('abort', onAbort);
          tls.destroy();
          raw.destroy();
          reject(e);
        };
        const onAbort = () => fail(signal.reason as Error);
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        tls.once('error', fail);
        tls.once('secureConnect', () => {
          signal.removeEventListener('abort', onAbort);
          tls.off('error', fail);
          resolve(tls);
        });
      });
    };
    route()({ host, port }, finish, attempts.signal).then(
      (socket) => finished(null, socket),
      (e: unknown) => finished(e instanceof Error ? e : new Error(String(e))),
    );
  };
}

export function createControlTransport(options: ControlTransportOptions = {}): ControlTransport {
  let ca = options.ca ?? null;
  let route = options.route ?? directRoute(options.openSocket ?? openMarkedSocket);
  const connect = routedConnector(
    () => route,
    () => ca,
  );
  const makeAgent = () => new Agent({ connect });
  let agent = makeAgent();
  const replace = () => {
    const old = agent;
    agent = makeAgent();
    old.destroy().catch(() => undefined);
  };
  return {
    fetch: (url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher: agent,
      }) as unknown as Promise<Response>,
    reset: replace,
    trust(next) {
      if (next === ca) return;
      ca = next;
      replace();
    },
    useRoute(next) {
      route = next;
      replace();
    },
    close: () => agent.destroy(),
  };
}
