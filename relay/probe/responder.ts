// The relay's latency probe responder: one UDP socket on the probe port (IPv6 and IPv4 where
// the host has IPv6), answering what the ProbeGate lets through. Source addresses are used to
// answer and to rate-limit, in memory only as long as their rate limit needs them (swept every
// SWEEP_MS), and are never logged.
import dgram from 'node:dgram';
import type { Logger } from 'pino';
import { SWEEP_MS } from '../rate/token-buckets.js';
import { ProbeGate, type GateCounters, type GateOptions } from './probe-gate.js';

export interface ResponderOptions extends GateOptions {
  port: number;
  /**
   * The node's probe key, base64 (from registration). null: not known yet (the port is bound
   * before the relay registers it); every datagram is dropped until `setKey`.
   */
  key: string | null;
  log: Logger;
  nowMs?: () => number;
  /** How often sources whose rate limit needs them no more are forgotten; SWEEP_MS. */
  sweepMs?: number;
}

export class ProbeResponder {
  private gate: ProbeGate | undefined;
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly o: ResponderOptions,
    private readonly nowMs: () => number,
    private readonly log: Logger,
  ) {
    if (o.key !== null) this.gate = new ProbeGate(decodeKey(o.key), o);
    socket.on('message', (msg, rinfo) => {
      const reply = this.gate?.answer(msg, rinfo.address, this.nowMs());
      // A failed send (e.g. no route back) is the same as no answer: nothing to tell anyone.
      if (reply) socket.send(reply, rinfo.port, rinfo.address, () => {});
    });
    // A socket error here is transient (e.g. an ICMP error queued on the socket): keep serving.
    socket.on('error', (e) => this.log.warn({ err: e.message }, 'probe responder socket error'));
    this.sweeper = setInterval(() => this.gate?.sweep(this.nowMs()), o.sweepMs ?? SWEEP_MS);
    this.sweeper.unref();
  }

  static async start(o: ResponderOptions): Promise<ProbeResponder> {
    if (o.key !== null) decodeKey(o.key);
    const socket = await bind(o.port);
    return new ProbeResponder(socket, o, o.nowMs ?? Date.now, o.log);
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** Follows the control plane's key (it may rotate it); a malformed one is ignored. */
  setKey(key: string): void {
    try {
      const decoded = decodeKey(key);
      if (this.gate) this.gate.setKey(decoded, this.nowMs());
      else this.gate = new ProbeGate(decoded, this.o);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'ignoring a malformed probe key');
    }
  }

  /** Sources held in memory now (IPv4 addresses and IPv6 /64s). */
  get trackedSources(): number {
    return this.gate?.trackedSources ?? 0;
  }

  counters(): GateCounters {
    return (
      this.gate?.counters() ?? {
        answered: 0,
        dropped: { rate: 0, invalid: 0, stale: 0, replay: 0, busy: 0 },
      }
    );
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

function decodeKey(base64: string): Uint8Array {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32 || key.toString('base64') !== base64)
    throw new RangeError('a probe key is 32 bytes, base64');
  return key;
}

/** Binds the dual-stack wildcard, or the IPv4 one on a host without IPv6. */
async function bind(port: number): Promise<dgram.Socket> {
  try {
    return await bindOne(dgram.createSocket({ type: 'udp6', ipv6Only: false }), port, '::');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL') throw e;
    return bindOne(dgram.createSocket('udp4'), port, '0.0.0.0');
  }
}

function bindOne(socket: dgram.Socket, port: number, address: string): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => {
      socket.close();
      reject(e);
    };
    socket.once('error', fail);
    socket.bind(port, address, () => {
      socket.off('error', fail);
      resolve(socket);
    });
  });
}
