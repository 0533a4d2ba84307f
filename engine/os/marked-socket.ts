// The engine's own sockets that carry a routing mark (SO_MARK) from their first packet: made by
// the native addon (Node cannot set SO_MARK) and handed to Node's net and dgram, so that the kill
// switch can tell the engine's control-plane calls and latency probes from any other process's.
import { closeSync } from 'node:fs';
import dgram from 'node:dgram';
import { isIP, Socket } from 'node:net';

import { markedSocket } from '../../native/index.js';

/**
 * Makes a socket of `family` and `kind` that carries `mark` and returns its descriptor, or
 * throws (never an unmarked socket). The native addon's in production; a seam for tests.
 */
export type MarkedSocketOpener = (family: 4 | 6, kind: 'tcp' | 'udp', mark: number) => number;

export const openMarkedSocket: MarkedSocketOpener = markedSocket;

function familyOf(address: string): 4 | 6 {
  const family = isIP(address);
  // A name would be looked up by net, which may then open sockets of its own (unmarked).
  if (family === 0) throw new TypeError('a marked socket connects to an IP address');
  return family as 4 | 6;
}

/**
 * A TCP connection to `address`:`port` from a socket that carries `mark`; resolves once it is
 * connected, rejects with the socket's error (EPERM when a firewall drops it on the way out),
 * or with `signal`'s reason once it aborts: the socket still connecting is closed then, never
 * left to the kernel's own timeout.
 */
export function connectMarkedTcp(
  address: string,
  port: number,
  mark: number,
  open: MarkedSocketOpener = openMarkedSocket,
  signal?: AbortSignal,
): Promise<Socket> {
  signal?.throwIfAborted();
  const family = familyOf(address);
  const fd = open(family, 'tcp', mark);
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: true, writable: true });
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => {
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(e);
    };
    const onAbort = () => onError(signal!.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    // In the same tick as the construction: Node starts reading a socket made from a descriptor
    // at once, and a read of a socket that is not connecting fails (ENOTCONN). The address is a
    // literal and family selection is off, so net connects this very descriptor (it would open
    // sockets of its own for a name, or to race families).
    socket.connect({ host: address, port, family, autoSelectFamily: false }, () => {
      signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** A UDP socket of `family` that carries `mark` (bound by the kernel at its first send or connect). */
export function markedUdpSocket(
  family: 4 | 6,
  mark: number,
  open: MarkedSocketOpener = openMarkedSocket,
): dgram.Socket {
  const fd = open(family, 'udp', mark);
  const socket = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
  try {
    socket.bind({ fd });
  } catch (e) {
    socket.close();
    closeSync(fd);
    throw e;
  }
  return socket;
}
