// API access through relays, the relay's side: an authentic hello on the TLS port that asks for
// the control plane (docs/protocol.md, "API streams") is answered with the node's server flight,
// and the byte stream inside its records is spliced to the control plane's HTTPS port. The
// client speaks TLS to the control plane inside, end to end: the relay sees ciphertext and the
// control plane's address only. Rate-limited per source address (new streams a minute) and in
// total (streams at once); nothing about a stream (its address, its bytes, its time) is logged or
// kept beyond the rate limit's memory of a refilling bucket.
import net from 'node:net';

import { RecordStream } from '../../platform/tls/record-stream.js';
import { sourceKey } from '../probe/source-limiter.js';
import { SWEEP_MS, TokenBuckets, type KeyedRate } from '../rate/token-buckets.js';
import { handedSocket } from './handed-socket.js';

export interface ApiRelayOptions {
  /** Where the control plane is (its addresses and port, as the relay reaches it). */
  target: () => { addresses: string[]; port: number };
  /**
   * New streams per source address (default: 2 a second, bursts of 30: a household behind one
   * address signing in and connecting, never a flood).
   */
  perSource?: KeyedRate;
  /** Streams at once (default 64); one beyond them is closed at once. */
  maxStreams?: number;
  /** A stream with no byte either way for this long is closed (default 60 s). */
  idleMs?: number;
  /** Giving up on an address of the control plane (default 5 s). */
  connectTimeoutMs?: number;
  /** Opens a connection to the control plane (tests); net.connect by default. */
  connect?: (o: net.NetConnectOpts) => net.Socket;
  now?: () => number;
}

export const DEFAULT_API_RATE: KeyedRate = { perSecond: 2, burst: 30, maxKeys: 4096 };
export const DEFAULT_MAX_API_STREAMS = 64;

export class ApiRelay {
  private readonly buckets: TokenBuckets;
  private readonly streams = new Set<net.Socket>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly o: ApiRelayOptions) {
    this.buckets = new TokenBuckets(o.perSource ?? DEFAULT_API_RATE);
    this.sweeper = setInterval(() => this.buckets.sweep(this.now()), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Streams in progress. */
  get active(): number {
    return this.streams.size;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** ServerTunnelOptions.onApiStream: the connection's descriptor, now ours, and the flight. */
  readonly onApiStream = (fd: number, reply: Buffer): void => {
    const socket = handedSocket(fd);
    if (socket) this.take(socket, reply);
  };

  /** Takes a client's socket whose hello asked for the control plane; `reply` goes first. */
  take(client: net.Socket, reply: Buffer): void {
    client.on('error', () => undefined);
    // An IPv6 source by its /64: one host may hold all of it.
    const source = sourceKey(client.remoteAddress ?? '');
    const max = this.o.maxStreams ?? DEFAULT_MAX_API_STREAMS;
    if (this.closed || this.streams.size >= max || !this.buckets.take(source, this.now())) {
      // Over a limit: closed unanswered, as a node's TCP port closes what it cannot take.
      client.destroy();
      return;
    }
    this.streams.add(client);
    client.once('close', () => this.streams.delete(client));
    const inner = new RecordStream(client, { prefix: reply, skipFirstData: true });
    inner.on('error', () => undefined);
    // What the client sends meanwhile waits in the stream until the splice reads it.
    void this.open().then(
      (upstream) => {
        if (inner.destroyed) return upstream.destroy();
        this.splice(inner, upstream);
      },
      () => inner.destroy(),
    );
    client.setTimeout(this.o.idleMs ?? 60_000, () => inner.destroy());
  }

  /** A connection to the control plane: its addresses in turn. */
  private async open(): Promise<net.Socket> {
    const { addresses, port } = this.o.target();
    let last: unknown = new Error('the control plane has no address');
    for (const host of addresses) {
      try {
        return await new Promise<net.Socket>((resolve, reject) => {
          const s = (this.o.connect ?? net.connect)({ host, port, allowHalfOpen: true });
          const timer = setTimeout(() => {
            s.destroy();
            reject(new Error('timed out'));
          }, this.o.connectTimeoutMs ?? 5_000);
          s.once('connect', () => {
            clearTimeout(timer);
            resolve(s);
          });
          s.once('error', (e) => {
            clearTimeout(timer);
            reject(e);
          });
        });
      } catch (e) {
        last = e;
      }
    }
    throw last;
  }

  private splice(inner: RecordStream, upstream: net.Socket): void {
    upstream.on('error', () => inner.destroy());
    inner.on('error', () => upstream.destroy());
    upstream.on('close', () => inner.destroy());
    inner.on('close', () => upstream.destroy());
    upstream.setNoDelay(true);
    inner.socket.setNoDelay(true);
    inner.pipe(upstream);
    upstream.pipe(inner);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const s of this.streams) s.destroy();
    this.streams.clear();
  }
}
