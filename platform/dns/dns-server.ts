// The listening side of a DNS resolver: UDP and TCP on each listen address, RFC 7766 TCP handling,
// bounds per client and for all, and a deadline per query after which the client gets SERVFAIL.
// What answers a query is the caller's (a forwarder, a local proxy). Who asked what is held in
// memory only while a query is in flight, and neither is ever logged or counted per client (the
// no-logs rule): the counters are aggregates, and logs carry error codes only.
import dgram from 'node:dgram';
import net from 'node:net';
import type { Logger } from 'pino';
import {
  frame,
  parseQuery,
  servfail,
  takeMessages,
  withId,
  type DnsQuery,
  type DnsTransport,
} from './wire.js';

/** Answers one query; resolve null for SERVFAIL. The server rewrites the answer's ID to the client's. `signal` aborts at the deadline or close. */
export type AnswerQuery = (
  query: DnsQuery,
  transport: DnsTransport,
  signal: AbortSignal,
) => Promise<Buffer | null>;

/**
 * Per-client bounds (the relay's ClientLimits implements this); absent: none. Every
 * `takeQuery` that returned true is followed by exactly one `queryDone`, every `takeConnection`
 * that returned true by exactly one `connectionClosed`, for the same client.
 */
export interface ClientBounds {
  takeQuery(client: string): boolean;
  queryDone(client: string): void;
  takeConnection(client: string): boolean;
  connectionClosed(client: string): void;
  /** Forgets clients with nothing open; the server calls it every `sweepMs`. */
  sweep(): void;
}

export interface DnsServerOptions {
  /** Addresses to serve on, UDP and TCP each. */
  listen: readonly string[];
  /** 0 (tests) lets each socket pick a free port. */
  port: number;
  answer: AnswerQuery;
  /** The sources served; others are dropped. All if unset. */
  clients?: net.BlockList;
  bounds?: ClientBounds;
  /** How often `bounds.sweep()` runs; every 10 s if unset. */
  sweepMs?: number;
  log: Logger;
  /** A query's whole budget; the client gets SERVFAIL after it. */
  timeoutMs: number;
  /** Queries in flight at once, of all clients; more are dropped (the client retries). */
  maxInFlight: number;
  maxTcpConnections: number;
  /** A TCP connection with no traffic for this long is closed (RFC 7766 6.2.3). */
  tcpIdleMs: number;
  /** Every TCP connection is closed this long after it opened, however busy it is. */
  tcpMaxLifetimeMs: number;
  /** Queries one TCP connection may have in flight before it is read no further. */
  maxQueriesPerConnection: number;
  /**
   * Binding retries while a listen address is not there yet (EADDRNOTAVAIL): an interface may
   * still be coming up, or an IPv6 address may still be tentative.
   */
  bindAttempts: number;
  bindRetryMs: number;
  /**
   * What errors and logs call this server: "DNS resolver" by default, so the listen error reads
   * "the DNS resolver cannot listen on port N: CODE".
   */
  label?: string;
}

export interface DnsServerCounters {
  /** Well-formed queries taken. */
  queries: number;
  /** Answers relayed to a client. */
  answered: number;
  /** Queries answered with SERVFAIL: no answer by the deadline, or none to give. */
  failed: number;
  /** Datagrams and messages dropped: not a query, or over a bound (a client's or that of all). */
  dropped: number;
}

export interface Listening {
  address: string;
  udpPort: number;
  tcpPort: number;
}

const DEFAULT_SWEEP_MS = 10_000;

const UNBOUNDED: ClientBounds = {
  takeQuery: () => true,
  queryDone: () => {},
  takeConnection: () => true,
  connectionClosed: () => {},
  sweep: () => {},
};

interface Pending {
  query: DnsQuery;
  /** The client's address, for its bounds. */
  client: string;
  reply: (message: Buffer) => void;
  deadline: NodeJS.Timeout;
  /** Ends the answering without a result. */
  stop: AbortController;
  onDone?: () => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Binds with retries while the address is not (yet) on the host; any other error, or the last
 * attempt's, is thrown.
 */
async function bindWithRetries<T>(
  attempts: number,
  delayMs: number,
  bindOnce: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bindOnce();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL' || attempt >= attempts) throw e;
      await sleep(delayMs);
    }
  }
}

function bindUdp(address: string, port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => {
      socket.close();
      reject(e);
    };
    socket.once('error', fail);
    socket.bind({ address, port }, () => {
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

function listenTcp(server: net.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => reject(e);
    server.once('error', fail);
    server.listen({ host, port }, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/**
 * Contract: one instance owns its sockets; `close()` ends every query in flight without an
 * answer and releases every socket and timer.
 */
export class DnsServer {
  private readonly inFlight = new Set<Pending>();
  private readonly connections = new Set<net.Socket>();
  private readonly counts: DnsServerCounters = { queries: 0, answered: 0, failed: 0, dropped: 0 };
  private readonly udp: dgram.Socket[] = [];
  private readonly tcp: net.Server[] = [];
  private readonly bounds: ClientBounds;
  private readonly label: string;
  private readonly sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly o: DnsServerOptions) {
    this.bounds = o.bounds ?? UNBOUNDED;
    this.label = o.label ?? 'DNS resolver';
    const bounds = o.bounds;
    this.sweeper = bounds
      ? setInterval(() => bounds.sweep(), o.sweepMs ?? DEFAULT_SWEEP_MS).unref()
      : undefined;
  }

  static async start(o: DnsServerOptions): Promise<DnsServer> {
    const s = new DnsServer(o);
    try {
      for (const address of o.listen) {
        const socket = await bindWithRetries(o.bindAttempts, o.bindRetryMs, () =>
          bindUdp(address, o.port),
        );
        s.serveUdp(socket);
        const server = net.createServer((c) => s.serveTcp(c));
        server.maxConnections = o.maxTcpConnections;
        await bindWithRetries(o.bindAttempts, o.bindRetryMs, () =>
          listenTcp(server, address, o.port),
        );
        s.tcp.push(server);
        // After a successful listen: a transient accept error must not take the resolver down.
        server.on('error', (e: NodeJS.ErrnoException) =>
          o.log.warn({ code: e.code }, `${s.label} TCP error`),
        );
      }
    } catch (e) {
      await s.close();
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new Error(`the ${s.label} cannot listen on port ${o.port}: ${code}`, { cause: e });
    }
    return s;
  }

  listening(): Listening[] {
    return this.udp.map((s, i) => ({
      address: s.address().address,
      udpPort: s.address().port,
      tcpPort: (this.tcp[i]?.address() as net.AddressInfo | null)?.port ?? 0,
    }));
  }

  counters(): DnsServerCounters {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const p of this.inFlight) this.settle(p);
    for (const c of this.connections) c.destroy();
    await Promise.all([
      ...this.udp.map((s) => new Promise<void>((r) => s.close(() => r()))),
      ...this.tcp.map((s) => new Promise<void>((r) => s.close(() => r()))),
    ]);
    this.udp.length = 0;
    this.tcp.length = 0;
  }

  private serveUdp(socket: dgram.Socket): void {
    this.udp.push(socket);
    socket.on('message', (message, from) => {
      if (!this.served(from.address)) return void this.counts.dropped++;
      // A failed send (the client went away) is the same as a lost datagram: the client retries.
      this.take(parseQuery(message), 'udp', from.address, (answer) =>
        socket.send(answer, from.port, from.address, () => {}),
      );
    });
    // Only the code: a send error's message names the client's address.
    socket.on('error', (e: NodeJS.ErrnoException) =>
      this.o.log.warn({ code: e.code }, `${this.label} UDP error`),
    );
  }

  private serveTcp(conn: net.Socket): void {
    const client = conn.remoteAddress;
    if (this.closed || client === undefined || !this.served(client)) return void conn.destroy();
    // Over its share the client's connection goes at once: one client must not hold them all.
    if (!this.bounds.takeConnection(client)) return void conn.destroy();
    this.connections.add(conn);
    // However busy: a client that trickles queries must not hold its connections for ever.
    const lifetime = setTimeout(() => conn.destroy(), this.o.tcpMaxLifetimeMs);
    let buffered: Buffer = Buffer.alloc(0);
    let open = 0;
    const drain = () => {
      const room = this.o.maxQueriesPerConnection - open;
      const { messages, rest } = takeMessages(buffered, room);
      buffered = rest;
      for (const message of messages) {
        const query = parseQuery(message);
        if (!query) {
          // Not a DNS client: nothing it sends next is worth reading.
          this.counts.dropped++;
          return void conn.destroy();
        }
        open++;
        const taken = this.take(
          query,
          'tcp',
          client,
          (answer) => {
            if (!conn.destroyed) conn.write(frame(answer));
          },
          () => {
            open--;
            if (conn.isPaused() && !conn.destroyed && !this.closed) {
              conn.resume();
              drain();
            }
          },
        );
        if (!taken) open--;
      }
      // Whatever is left waits in the socket's buffers until a query of this connection ends.
      if (open >= this.o.maxQueriesPerConnection) conn.pause();
    };
    conn.setNoDelay(true);
    conn.setTimeout(this.o.tcpIdleMs, () => conn.destroy());
    conn.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      drain();
    });
    conn.on('error', () => {});
    conn.on('close', () => {
      clearTimeout(lifetime);
      this.connections.delete(conn);
      this.bounds.connectionClosed(client);
    });
  }

  private served(address: string | undefined): boolean {
    if (!this.o.clients) return true;
    if (address === undefined) return false;
    return this.o.clients.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  }

  /**
   * Takes a client's query; false when it is dropped. `onDone` runs when a taken one ends. The
   * client's own bounds come first, so that a client over them takes nothing of the others'.
   */
  private take(
    query: DnsQuery | undefined,
    transport: DnsTransport,
    client: string,
    reply: (message: Buffer) => void,
    onDone?: () => void,
  ): boolean {
    if (!query || this.closed || !this.bounds.takeQuery(client)) {
      this.counts.dropped++;
      return false;
    }
    if (this.inFlight.size >= this.o.maxInFlight) {
      this.bounds.queryDone(client);
      this.counts.dropped++;
      return false;
    }
    this.counts.queries++;
    const p: Pending = {
      query,
      client,
      reply,
      deadline: setTimeout(() => this.fail(p), this.o.timeoutMs),
      stop: new AbortController(),
      ...(onDone ? { onDone } : {}),
    };
    this.inFlight.add(p);
    // A promise even when the answerer throws at once.
    new Promise<Buffer | null>((resolve) =>
      resolve(this.o.answer(query, transport, p.stop.signal)),
    ).then(
      (answer) => (answer === null ? this.fail(p) : this.relay(p, answer)),
      (e: unknown) => {
        if (!this.inFlight.has(p)) return;
        // A throwing answerer is a bug of ours; the client still gets its SERVFAIL. Only the
        // code: an error's message may name the client or the name it asked for.
        this.o.log.warn({ code: (e as NodeJS.ErrnoException)?.code }, `${this.label} answer error`);
        this.fail(p);
      },
    );
    return true;
  }

  private relay(p: Pending, answer: Buffer): void {
    if (!this.inFlight.has(p)) return;
    this.counts.answered++;
    this.settle(p);
    p.reply(withId(answer, p.query.id));
  }

  private fail(p: Pending): void {
    if (!this.inFlight.has(p)) return;
    this.counts.failed++;
    this.settle(p);
    p.reply(servfail(p.query));
  }

  /** Ends a query's deadline and its answering. */
  private settle(p: Pending): void {
    if (!this.inFlight.delete(p)) return;
    this.bounds.queryDone(p.client);
    clearTimeout(p.deadline);
    p.stop.abort();
    p.onDone?.();
  }
}
