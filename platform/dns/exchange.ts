// One query/answer exchange with one upstream resolver over UDP or TCP, on sockets of its own,
// ended by the answer, a failure or the caller's abort; what sockets it uses is the caller's
// choice (the engine's are marked so that they bypass the tunnel).
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import {
  answerRcode,
  frame,
  takeMessages,
  withId,
  type DnsQuery,
  type DnsTransport,
} from './wire.js';

export interface Upstream {
  address: string;
  /** UDP and TCP port (53 for a real resolver). */
  port: number;
}

export type ExchangeResult = { kind: 'answer'; answer: Buffer; rcode: string } | { kind: 'failed' };

/** How an exchange gets its sockets: plain ones by default; the engine passes marked ones (SO_MARK). */
export interface ExchangeSockets {
  /** A fresh unbound UDP socket of the family (an exchange closes it). */
  udp(family: 4 | 6): dgram.Socket;
  /** A TCP connection to address:port, resolved once connected (an exchange destroys it). */
  tcp(address: string, port: number, signal: AbortSignal): Promise<net.Socket>;
}

export const PLAIN_SOCKETS: ExchangeSockets = {
  udp: (family) => dgram.createSocket(family === 6 ? 'udp6' : 'udp4'),
  tcp: (address, port, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const conn = net.connect({ host: address, port });
      const abort = () => {
        conn.destroy();
        reject(signal.reason);
      };
      const fail = (e: Error) => {
        signal.removeEventListener('abort', abort);
        conn.destroy();
        reject(e);
      };
      signal.addEventListener('abort', abort, { once: true });
      conn.once('error', fail);
      conn.once('connect', () => {
        signal.removeEventListener('abort', abort);
        conn.off('error', fail);
        resolve(conn);
      });
    }),
};

const FAILED: ExchangeResult = { kind: 'failed' };

/**
 * Sends `query` (its raw bytes under a fresh random ID, fresh source port for UDP; connected UDP
 * socket) and resolves with the matching answer (the message with the UPSTREAM's id — callers
 * rewrite it) or failed. A spoofed/mismatched answer over UDP is ignored, not taken as the end.
 * Aborting `signal` resolves {kind:'failed'} and releases the socket.
 */
export function exchange(
  up: Upstream,
  query: DnsQuery,
  transport: DnsTransport,
  signal: AbortSignal,
  sockets: ExchangeSockets = PLAIN_SOCKETS,
): Promise<ExchangeResult> {
  if (signal.aborted) return Promise.resolve(FAILED);
  return transport === 'udp'
    ? exchangeUdp(up, query, signal, sockets)
    : exchangeTcp(up, query, signal, sockets);
}

/**
 * Over UDP from a socket of its own: a fresh random source port as well as a fresh ID, so that an
 * off-path answer has 32 bits to guess (RFC 5452), and a connected socket, so that an upstream
 * that is down says so at once (ICMP port unreachable).
 */
function exchangeUdp(
  up: Upstream,
  q: DnsQuery,
  signal: AbortSignal,
  sockets: ExchangeSockets,
): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    let socket: dgram.Socket;
    try {
      socket = sockets.udp(net.isIPv6(up.address) ? 6 : 4);
    } catch {
      return resolve(FAILED);
    }
    const id = randomInt(0, 65536);
    let over = false;
    const end = (r: ExchangeResult) => {
      if (over) return;
      over = true;
      signal.removeEventListener('abort', abort);
      socket.close();
      resolve(r);
    };
    const abort = () => end(FAILED);
    signal.addEventListener('abort', abort, { once: true });
    socket.on('error', () => end(FAILED));
    socket.on('message', (message) => {
      const rcode = answerRcode(message, id, q.question);
      // Anything else is ignored, not taken as the end: a spoofer must not cut the real answer off.
      if (rcode !== undefined) end({ kind: 'answer', answer: message, rcode });
    });
    // The callback has the error of a connect that failed (documented, but not in the types).
    socket.connect(up.port, up.address, (e?: Error) => {
      if (over) return;
      if (e) return end(FAILED);
      socket.send(withId(q.raw, id), (e) => {
        if (e) end(FAILED);
      });
    });
  });
}

/**
 * Over TCP, on a connection of its own. The first message back is the end: an upstream that
 * answers something else on its own connection is not one to wait for.
 */
async function exchangeTcp(
  up: Upstream,
  q: DnsQuery,
  signal: AbortSignal,
  sockets: ExchangeSockets,
): Promise<ExchangeResult> {
  let conn: net.Socket;
  try {
    conn = await sockets.tcp(up.address, up.port, signal);
  } catch {
    return FAILED;
  }
  return new Promise((resolve) => {
    const id = randomInt(0, 65536);
    let buffered: Buffer = Buffer.alloc(0);
    let over = false;
    const end = (r: ExchangeResult) => {
      if (over) return;
      over = true;
      signal.removeEventListener('abort', abort);
      conn.destroy();
      resolve(r);
    };
    const abort = () => end(FAILED);
    if (signal.aborted || conn.destroyed) return end(FAILED);
    signal.addEventListener('abort', abort, { once: true });
    conn.setNoDelay(true);
    conn.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const { messages } = takeMessages(buffered, 1);
      const message = messages[0];
      if (!message) return;
      const rcode = answerRcode(message, id, q.question);
      end(rcode === undefined ? FAILED : { kind: 'answer', answer: message, rcode });
    });
    conn.on('error', () => end(FAILED));
    conn.on('close', () => end(FAILED));
    conn.write(frame(withId(q.raw, id)));
  });
}
