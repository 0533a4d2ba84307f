// API access through a proxy the user gives: a TCP connection (from the engine's marked socket)
// to the proxy, which is asked to connect to the control plane's host and port. SOCKS5 by the
// `socks` library (the host name goes to the proxy, which resolves it: a name the local resolver
// is lied to about still works); HTTP by a CONNECT request. The caller speaks TLS inside.
import type { Socket } from 'node:net';
import { SocksClient } from 'socks';

import { proxyCredentials, type ApiMethod } from '../../contracts/index.js';
import {
  connectMarkedTcp,
  openMarkedSocket,
  type MarkedSocketOpener,
} from '../os/marked-socket.js';
import { CONTROL_FWMARK } from '../protection/firewall-policy.js';

export type ProxyMethod = Extract<ApiMethod, { host: string }>;

/** The largest CONNECT answer head read (status line and headers). */
const MAX_CONNECT_HEAD = 16 * 1024;

export interface ProxyOpenOptions {
  open?: MarkedSocketOpener;
  signal: AbortSignal;
  /** The proxy's addresses (its host looked up by the caller). */
  addresses: string[];
}

async function connectProxy(proxy: ProxyMethod, o: ProxyOpenOptions): Promise<Socket> {
  let last: unknown = new Error('the proxy has no address');
  for (const address of o.addresses) {
    try {
      return await connectMarkedTcp(
        address,
        proxy.port,
        CONTROL_FWMARK,
        o.open ?? openMarkedSocket,
        o.signal,
      );
    } catch (e) {
      last = e;
      if (o.signal.aborted) break;
    }
  }
  throw new Error(`cannot reach the proxy: ${(last as Error).message}`);
}

/** A connection to `host`:`port` through a SOCKS5 proxy. */
export async function openSocks5(
  proxy: ProxyMethod,
  host: string,
  port: number,
  o: ProxyOpenOptions,
): Promise<Socket> {
  const socket = await connectProxy(proxy, o);
  const creds = proxyCredentials(proxy);
  // The handshake ends with the signal too (the library's own limit is longer).
  const onAbort = () => socket.destroy(new Error('the proxy did not answer in time'));
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      command: 'connect',
      existing_socket: socket,
      proxy: {
        host: proxy.host,
        port: proxy.port,
        type: 5,
        ...(creds ? { userId: creds.user, password: creds.password } : {}),
      },
      destination: { host, port },
      timeout: 10_000,
    });
    return tunnel;
  } catch (e) {
    socket.destroy();
    if (o.signal.aborted) throw new Error('the proxy did not answer in time');
    throw new Error(`the SOCKS5 proxy refused: ${(e as Error).message}`);
  } finally {
    o.signal.removeEventListener('abort', onAbort);
  }
}

/** A connection to `host`:`port` through an HTTP proxy (CONNECT). */
export async function openHttpConnect(
  proxy: ProxyMethod,
  host: string,
  port: number,
  o: ProxyOpenOptions,
): Promise<Socket> {
  const socket = await connectProxy(proxy, o);
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = (e: Error) => {
      cleanup();
      socket.destroy();
      reject(e);
    };
    const onAbort = () => fail(new Error('the proxy did not answer in time'));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_CONNECT_HEAD) fail(new Error('the proxy’s answer is not HTTP'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'));
      if (!status) return fail(new Error('the proxy’s answer is not HTTP'));
      if (status[1] !== '200')
        return fail(new Error(`the proxy refused the connection (HTTP ${status[1]})`));
      // Paused: what followed the answer in the same packet waits for the caller's reader.
      socket.pause();
      cleanup();
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    const onClose = () => fail(new Error('the proxy closed the connection'));
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', fail);
      o.signal.removeEventListener('abort', onAbort);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', fail);
    o.signal.addEventListener('abort', onAbort, { once: true });
  });
}
