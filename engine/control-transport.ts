// The engine's HTTP transport to the control plane: fetch over a connection pool that the engine
// drops whenever the routes change (a tunnel came or went). A kept-alive connection opened
// before a full tunnel would otherwise carry on with the old source address through the tunnel
// and hang; browsers drop their pools on a network change for the same reason. Every connection
// leaves from a socket with the engine's control-plane mark (CONTROL_FWMARK), which is what the kill switch lets
// out to the control plane: no other process gets through by that allowance.
import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import {
  Agent,
  fetch as undiciFetch,
  type buildConnector,
  type RequestInit as UndiciRequestInit,
} from 'undici';
import type { FetchLike } from '../contracts/index.js';
import { trustContext } from '../platform/tls/trust-context.js';
import { connectMarkedTcp, openMarkedSocket, type MarkedSocketOpener } from './os/marked-socket.js';
import { CONTROL_FWMARK } from './protection/firewall-policy.js';

export interface ControlTransport {
  fetch: FetchLike;
  /** Drops every pooled connection; calls under way fail and the next ones open new ones. */
  reset(): void;
  /**
   * Trusts these CA certificates (PEM) for https besides the system's (null: the system's
   * only). A change drops the pool: no connection verified under other trust is reused.
   */
  trust(ca: string | null): void;
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
}

/** How long one connection (TCP and TLS) may take before the call fails. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long one address may take to answer before the next is tried: a blackholed first
 * address must not spend the whole budget (RFC 8305 races them; in turn is enough here).
 */
const ATTEMPT_TIMEOUT_MS = 4_000;
/** TLS sessions kept to resume (one per control plane's host and port). */
const MAX_SESSIONS = 8;

/** The addresses of a URL's host: a literal as it is, a name through the system's resolver. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  return (await lookup(host, { all: true, order: 'verbatim' })).map((a) => a.address);
}

/**
 * undici's connector, with the engine's marked socket under it: the host's addresses in turn
 * (net would open sockets of its own for a name), then for https TLS over that socket with the
 * host name checked against the system's roots and the configured CA.
 */
function markedConnector(
  open: MarkedSocketOpener,
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
    let done = false;
    let pending: Socket | null = null;
    // Aborted when the connect is over either way: a socket still connecting is closed with it.
    const attempts = new AbortController();
    const finish = (error: Error | null, socket?: Socket | TLSSocket) => {
      if (done) {
        socket?.destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      attempts.abort(error ?? new Error('connected'));
      if (error) {
        pending?.destroy();
        callback(error, null);
      } else callback(null, socket!);
    };
    const timer = setTimeout(() => {
      const e = Object.assign(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`), {
        code: 'UND_ERR_CONNECT_TIMEOUT',
      });
      finish(e);
    }, CONNECT_TIMEOUT_MS);
    timer.unref();
    const connectTcp = async (): Promise<Socket> => {
      let last: unknown = new Error(`${host} has no address`);
      for (const address of await addressesOf(host)) {
        if (done) break;
        const attempt = AbortSignal.any([attempts.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
        try {
          return await connectMarkedTcp(address, port, CONTROL_FWMARK, open, attempt);
        } catch (e) {
          last = e;
        }
      }
      throw last;
    };
    connectTcp().then(
      (tcp) => {
        // Timed out meanwhile: finish lets the late socket go.
        if (!https || done) return finish(null, tcp);
        pending = tcp;
        // Without a servername an IP literal's certificate is checked by its address.
        const servername = isIP(host) === 0 ? (opts.servername ?? host) : undefined;
        let tls: TLSSocket;
        const extra = ca();
        if (extra !== sessionsTrust) {
          sessions.clear();
          sessionsTrust = extra;
        }
        const key = `${host}:${port}`;
        try {
          const secureContext = trustContext(extra);
          const session = sessions.get(key);
          tls = tlsConnect({
            socket: tcp,
            host,
            ...(servername ? { servername } : {}),
            ALPNProtocols: ['http/1.1'],
            ...(secureContext ? { secureContext } : {}),
            ...(session ? { session } : {}),
          });
          tls.on('session', (ticket: Buffer) => {
            if (sessionsTrust !== extra) return;
            sessions.delete(key);
            sessions.set(key, ticket);
            // A control plane or two: a handful of entries, the oldest going first.
            for (const old of sessions.keys())
              if (sessions.size > MAX_SESSIONS) sessions.delete(old);
          });
        } catch (e) {
          // A CA Node cannot load, say: the call fails, the socket goes with it.
          return finish(e instanceof Error ? e : new Error(String(e)));
        }
        const onError = (e: Error) => {
          tls.destroy();
          finish(e);
        };
        tls.once('error', onError);
        tls.once('secureConnect', () => {
          tls.off('error', onError);
          finish(null, tls);
        });
      },
      (e: unknown) => finish(e instanceof Error ? e : new Error(String(e))),
    );
  };
}

export function createControlTransport(options: ControlTransportOptions = {}): ControlTransport {
  let ca = options.ca ?? null;
  const connect = markedConnector(options.openSocket ?? openMarkedSocket, () => ca);
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
    close: () => agent.destroy(),
  };
}
