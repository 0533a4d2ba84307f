// The seam under the latency probes: a UDP socket connected to one node's probe responder (send
// datagrams, hear its answers, close). The real one is a marked dgram socket; tests use
// datagrams.fake.ts, which answers as a relay's responder does without a packet sent.
import type dgram from 'node:dgram';

import { markedUdpSocket, openMarkedSocket, type MarkedSocketOpener } from '../os/marked-socket.js';
import { FERRY_FWMARK } from '../tunnel/names.js';

/**
 * One socket, used by one probe run at a time. Errors after `connect` resolved (an ICMP error
 * for one datagram) are not reported: the probe they belong to is simply lost.
 */
export interface DatagramSocket {
  /** Resolves once the socket is connected to `address`:`port`; rejects when it cannot be. */
  connect(address: string, port: number): Promise<void>;
  /** Sends one datagram to the connected peer; never throws for what the network does. */
  send(datagram: Uint8Array): void;
  /** Every datagram that arrives from the peer, in order. */
  onMessage(listener: (datagram: Uint8Array) => void): void;
  /** Idempotent; nothing is heard after it. */
  close(): void;
}

export interface Datagrams {
  /**
   * A new socket of `family`. Throws when it cannot be made as the probes need it (the real one:
   * without the tunnel sockets' mark), before anything is sent.
   */
  open(family: 4 | 6): DatagramSocket;
}

/**
 * The real datagrams: sockets that carry the tunnel sockets' mark (FERRY_FWMARK), so that a
 * probe takes the path the tunnel's own packets take, around the tunnel, and the kill switch
 * lets probes out by that mark, no other process's. `open` makes the marked descriptor (the
 * native addon's by default); a socket that cannot be marked is an error, never an unmarked one.
 */
export function markedDatagrams(open: MarkedSocketOpener = openMarkedSocket): Datagrams {
  return {
    open: (family) => new MarkedDatagramSocket(markedUdpSocket(family, FERRY_FWMARK, open)),
  };
}

class MarkedDatagramSocket implements DatagramSocket {
  #connected = false;
  #closed = false;

  constructor(private readonly socket: dgram.Socket) {
    // Before the connect, an error is the connect's (below); after it, a lost datagram's.
    socket.on('error', () => undefined);
  }

  connect(address: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (e: Error) => reject(e);
      this.socket.once('error', failed);
      this.socket.connect(port, address, () => {
        this.socket.off('error', failed);
        this.#connected = true;
        resolve();
      });
    });
  }

  send(datagram: Uint8Array): void {
    if (this.#closed || !this.#connected) return;
    this.socket.send(datagram, () => undefined);
  }

  onMessage(listener: (datagram: Uint8Array) => void): void {
    this.socket.on('message', (msg) => listener(msg));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.socket.close();
  }
}
