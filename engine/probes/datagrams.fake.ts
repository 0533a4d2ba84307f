// Datagrams for unit tests: stand-in probe responders that answer as a relay's does
// (relay/probe/responder.ts: the MAC, freshness and replay checks on contracts/probe.ts's codec),
// with no packet sent. Answers come after a timer, so fake timers make round trips exact.
import { createHmac, randomBytes } from 'node:crypto';

import {
  encodeProbeReply,
  isFreshProbe,
  openProbeRequest,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import type { DatagramSocket, Datagrams } from './datagrams.js';
import type { ProbeTarget } from './udp-probe.js';

const hmacSha256: HmacSha256 = (key, message) => createHmac('sha256', key).update(message).digest();

/**
 * What a responder does with its `n`th valid probe (0-based): answer ('ok'), drop it, answer
 * under another key, send the request back as it came ('echo'), or answer after `afterMs`. An
 * answer takes ANSWER_MS unless it says otherwise: never 0, since a 0 ms timer set inside
 * another fires 1 ms later on fake timers, and round trips would depend on who sent the probe.
 */
export type ResponderAnswer = 'ok' | 'drop' | 'wrong-key' | 'echo' | { afterMs: number };

export interface FakeResponder {
  /** The node as a probe target: its address, probe port and key. */
  readonly target: ProbeTarget;
  /** Valid probes it got (a replayed or stale one is not counted: the relay drops those). */
  readonly received: number;
}

/** How long an answer takes on the fake's network, unless the responder says. */
export const ANSWER_MS = 1;

/** Where nothing listens: a connect there fails, as one to an unreachable network does. */
export const UNREACHABLE_ADDRESS = '198.51.100.254';

export class FakeDatagrams implements Datagrams {
  readonly #responders = new Map<string, Responder>();
  readonly #sockets: FakeSocket[] = [];
  #nextAddress = 1;
  /** When set, open() throws it (a host where the socket cannot be marked). */
  failOpen: Error | null = null;

  /** A node running a probe responder, at an address of its own in 192.0.2.0/24. */
  responder(
    id: string,
    answer: (n: number) => ResponderAnswer = () => 'ok',
    region = 'r',
  ): FakeResponder {
    const host = `192.0.2.${this.#nextAddress++}`;
    const key = randomBytes(32);
    const r = new Responder(
      { id, region, host, port: 51822, key: key.toString('base64') },
      key,
      answer,
    );
    this.#responders.set(`${host}:51822`, r);
    return r;
  }

  /** Sockets opened and not yet closed. */
  get openSockets(): number {
    return this.#sockets.filter((s) => !s.closed).length;
  }

  open(family: 4 | 6): DatagramSocket {
    if (this.failOpen) throw this.failOpen;
    const socket = new FakeSocket(family, (address, port) =>
      this.#responders.get(`${address}:${port}`),
    );
    this.#sockets.push(socket);
    return socket;
  }
}

class Responder implements FakeResponder {
  received = 0;
  readonly #answered = new Set<string>();

  constructor(
    readonly target: ProbeTarget,
    private readonly key: Uint8Array,
    private readonly answer: (n: number) => ResponderAnswer,
  ) {}

  /** What it sends back for `datagram` (and after how long), or null for nothing. */
  reply(datagram: Uint8Array): { datagram: Uint8Array; afterMs: number } | null {
    const request = openProbeRequest(datagram, this.key, hmacSha256);
    if (!request || !isFreshProbe(request.timestampMs, Date.now())) return null;
    const nonce = Buffer.from(request.nonce).toString('hex');
    if (this.#answered.has(nonce)) return null;
    this.#answered.add(nonce);
    const what = this.answer(this.received++);
    if (what === 'drop') return null;
    if (what === 'echo') return { datagram: Uint8Array.from(datagram), afterMs: ANSWER_MS };
    const key = what === 'wrong-key' ? randomBytes(32) : this.key;
    const afterMs = typeof what === 'object' ? Math.max(ANSWER_MS, what.afterMs) : ANSWER_MS;
    return { datagram: encodeProbeReply(key, request.nonce, hmacSha256), afterMs };
  }
}

class FakeSocket implements DatagramSocket {
  closed = false;
  #peer: Responder | undefined;
  #connected = false;
  readonly #listeners: ((datagram: Uint8Array) => void)[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly family: 4 | 6,
    private readonly find: (address: string, port: number) => Responder | undefined,
  ) {}

  async connect(address: string, port: number): Promise<void> {
    if (this.closed) throw new Error('the socket is closed');
    if ((address.includes(':') ? 6 : 4) !== this.family)
      throw new Error(`an IPv${this.family} socket cannot reach ${address}`);
    if (address === UNREACHABLE_ADDRESS) throw new Error('connect ENETUNREACH');
    // A port where nothing listens takes the datagrams and never answers, as on a network.
    this.#peer = this.find(address, port);
    this.#connected = true;
  }

  send(datagram: Uint8Array): void {
    if (this.closed || !this.#connected) return;
    const reply = this.#peer?.reply(datagram);
    if (!reply) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.closed) for (const l of this.#listeners) l(reply.datagram);
    }, reply.afterMs);
    this.#timers.add(timer);
  }

  onMessage(listener: (datagram: Uint8Array) => void): void {
    this.#listeners.push(listener);
  }

  close(): void {
    this.closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
