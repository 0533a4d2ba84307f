// The relay's DNS resolver on its tunnel gateway address: a forwarder that passes each
// well-formed query to the node's upstream resolvers over UDP or TCP (as the client asked) and
// relays the answer, within bounds per device (see ClientLimits) and for all. Who asked what is
// held in memory only while a query is in flight, a device's address only while its bounds need
// it, and neither is ever logged or counted per client (the no-logs rule): the counters are
// aggregates.
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import dnsPacket from 'dns-packet';
import type { Logger } from 'pino';
import { GATEWAY_IPV4, GATEWAY_IPV6 } from '../../contracts/index.js';
import { SWEEP_MS } from '../rate/token-buckets.js';
import { ClientLimits } from './client-limits.js';

export interface Upstream {
  address: string;
  /** UDP and TCP port (53 for a real resolver). */
  port: number;
}

export interface DnsForwarderOptions {
  /** Addresses to serve on, UDP and TCP each (a relay's gateway addresses). */
  listen: readonly string[];
  /** 53 on a relay; 0 (tests) lets each socket pick a free port. */
  port?: number;
  /** Tried in turn, starting with the last one that answered. */
  upstreams: readonly Upstream[];
  /**
   * The sources served (a relay's device ranges); others are dropped: the gateway address is
   * reachable from the uplink's neighbours too, and the relay is no open resolver. All if unset.
   */
  clients?: net.BlockList;
  log: Logger;
  /** A query's whole budget across the upstreams; the client gets SERVFAIL after it. */
  timeoutMs?: number;
  /**
   * Queries waiting for an upstream at once, of all devices; more are dropped (the client
   * retries). The last line: each device has its own bounds below it.
   */
  maxInFlight?: number;
  maxTcpConnections?: number;
  /** Queries of one device (a source address) waiting for an upstream at once. */
  maxInFlightPerClient?: number;
  /** Queries one device may send per second on average, and in a burst; more are dropped. */
  clientQueriesPerSecond?: number;
  clientBurst?: number;
  /** TCP connections of one device at once; more are closed as they come. */
  maxTcpConnectionsPerClient?: number;
  /** Devices whose bounds are tracked at once; a new one beyond them is refused. */
  maxClients?: number;
  /** A TCP connection with no traffic for this long is closed (RFC 7766 6.2.3). */
  tcpIdleMs?: number;
  /** Every TCP connection is closed this long after it opened, however busy it is. */
  tcpMaxLifetimeMs?: number;
  /** Queries one TCP connection may have in flight before it is read no further. */
  maxQueriesPerConnection?: number;
  /**
   * Binding retries while a listen address is not there yet (EADDRNOTAVAIL): an interface may
   * still be coming up, or an IPv6 address may still be tentative.
   */
  bindAttempts?: number;
  bindRetryMs?: number;
}

export interface DnsCounters {
  /** Well-formed queries taken. */
  queries: number;
  /** Upstream answers relayed to a client. */
  answered: number;
  /** Queries answered with SERVFAIL because no upstream answered in time. */
  failed: number;
  /** Datagrams and messages dropped: not a query, or over a bound (a device's or that of all). */
  dropped: number;
}

export const DNS_DEFAULTS = {
  port: 53,
  timeoutMs: 4_000,
  maxInFlight: 4_096,
  maxTcpConnections: 256,
  maxInFlightPerClient: 128,
  clientQueriesPerSecond: 100,
  clientBurst: 200,
  maxTcpConnectionsPerClient: 8,
  maxClients: 1 << 20,
  tcpIdleMs: 10_000,
  tcpMaxLifetimeMs: 60_000,
  maxQueriesPerConnection: 32,
  bindAttempts: 30,
  bindRetryMs: 100,
} as const;

/** Where a relay serves: the IPv4 gateway, and the IPv6 one where the host has IPv6 up. */
export function gatewayListenAddresses(): string[] {
  const hasV6 = Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((a) => a.family === 'IPv6' && a.address === GATEWAY_IPV6),
  );
  return hasV6 ? [GATEWAY_IPV4, GATEWAY_IPV6] : [GATEWAY_IPV4];
}

/** The device ranges of a node (`10.64.0.0/10`, `fd66:6572:7279::/48`) as the sources to serve. */
export function deviceRanges(ipv4Cidr: string, ipv6Cidr: string): net.BlockList {
  const list = new net.BlockList();
  for (const [cidr, family] of [
    [ipv4Cidr, 'ipv4'],
    [ipv6Cidr, 'ipv6'],
  ] as const) {
    const [address, prefix] = cidr.split('/');
    list.addSubnet(address!, Number(prefix), family);
  }
  return list;
}

/** RFC 1035 4.1.1; dns-packet names rcodes when decoding but takes them as flag bits. */
const RCODE_SERVFAIL = 2;
/** A TCP message's length prefix (RFC 1035 4.2.2). */
const LENGTH_PREFIX = 2;

/** What the decoder returns beyond its published types. */
type Decoded = dnsPacket.DecodedPacket & { opcode?: string; rcode?: string };

interface Query {
  /** The client's bytes: forwarded as they are, so nothing dns-packet does not model is lost. */
  raw: Buffer;
  id: number;
  flags: number;
  question: dnsPacket.Question;
}

type Transport = 'udp' | 'tcp';

type AttemptResult = { kind: 'answer'; answer: Buffer; rcode: string } | { kind: 'failed' };

interface Pending {
  query: Query;
  transport: Transport;
  /** The device's address, for its bounds. */
  client: string;
  reply: (message: Buffer) => void;
  /** Upstreams tried so far. */
  tried: number;
  deadline: NodeJS.Timeout;
  /** Stops the current upstream attempt without a result. */
  cancel?: () => void;
  onDone?: () => void;
}

/** A well-formed query (QR=0, opcode QUERY, exactly one question), or undefined. */
export function parseQuery(message: Buffer): Query | undefined {
  let p: Decoded;
  try {
    p = dnsPacket.decode(message) as Decoded;
  } catch {
    return undefined;
  }
  if (p.flag_qr || p.opcode !== 'QUERY' || p.questions?.length !== 1) return undefined;
  return { raw: message, id: p.id ?? 0, flags: p.flags ?? 0, question: p.questions[0]! };
}

function sameQuestion(a: dnsPacket.Question, b: dnsPacket.Question): boolean {
  // Resolvers may echo the name in another letter case (0x20 randomisation): names are ASCII
  // case-insensitive.
  return a.name.toLowerCase() === b.name.toLowerCase() && a.type === b.type && a.class === b.class;
}

/**
 * The rcode of an upstream's answer to our query `id`, or undefined when the message is not
 * that answer (spoofed, stale or garbled): the ID and the question must both match. An error
 * answer may come without the question (e.g. FORMERR to an EDNS query, RFC 6891 7).
 */
function answerTo(message: Buffer, id: number, question: dnsPacket.Question): string | undefined {
  let p: Decoded;
  try {
    p = dnsPacket.decode(message) as Decoded;
  } catch {
    return undefined;
  }
  if (!p.flag_qr || p.id !== id) return undefined;
  const rcode = p.rcode ?? 'NOERROR';
  const questions = p.questions ?? [];
  if (questions.length === 0)
    return rcode === 'NOERROR' || rcode === 'NXDOMAIN' ? undefined : rcode;
  return questions.length === 1 && sameQuestion(questions[0]!, question) ? rcode : undefined;
}

/** The message with another ID; the rest stays byte for byte what the sender wrote. */
function withId(message: Buffer, id: number): Buffer {
  const copy = Buffer.from(message);
  copy.writeUInt16BE(id, 0);
  return copy;
}

function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(LENGTH_PREFIX);
  prefix.writeUInt16BE(message.length);
  return Buffer.concat([prefix, message]);
}

/** Splits complete length-prefixed messages off the front of `buffer`; returns the rest. */
function takeMessages(buffer: Buffer, max: number): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  while (messages.length < max && buffer.length - offset >= LENGTH_PREFIX) {
    const length = buffer.readUInt16BE(offset);
    if (buffer.length - offset - LENGTH_PREFIX < length) break;
    messages.push(buffer.subarray(offset + LENGTH_PREFIX, offset + LENGTH_PREFIX + length));
    offset += LENGTH_PREFIX + length;
  }
  return { messages, rest: buffer.subarray(offset) };
}

function servfail(q: Query): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: q.id,
    flags:
      (q.flags & (dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED)) |
      dnsPacket.RECURSION_AVAILABLE |
      RCODE_SERVFAIL,
    questions: [q.question],
  });
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

export interface Listening {
  address: string;
  udpPort: number;
  tcpPort: number;
}

/**
 * Contract: one instance per process owns its sockets; `close()` ends every query in flight
 * without an answer and releases every socket and timer.
 */
export class DnsForwarder {
  private readonly inFlight = new Set<Pending>();
  private readonly connections = new Set<net.Socket>();
  private readonly counts: DnsCounters = { queries: 0, answered: 0, failed: 0, dropped: 0 };
  private readonly udp: dgram.Socket[] = [];
  private readonly tcp: net.Server[] = [];
  /** The upstream that answered last: a dead first upstream costs one timeout, not one each. */
  private preferred = 0;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly maxInFlight: number;
  private readonly tcpIdleMs: number;
  private readonly tcpMaxLifetimeMs: number;
  private readonly maxQueriesPerConnection: number;
  private readonly limits: ClientLimits;
  private readonly sweeper: NodeJS.Timeout;

  private constructor(private readonly o: DnsForwarderOptions) {
    if (o.upstreams.length === 0) throw new Error('a DNS forwarder needs an upstream resolver');
    this.timeoutMs = o.timeoutMs ?? DNS_DEFAULTS.timeoutMs;
    this.maxInFlight = o.maxInFlight ?? DNS_DEFAULTS.maxInFlight;
    this.tcpIdleMs = o.tcpIdleMs ?? DNS_DEFAULTS.tcpIdleMs;
    this.tcpMaxLifetimeMs = o.tcpMaxLifetimeMs ?? DNS_DEFAULTS.tcpMaxLifetimeMs;
    this.maxQueriesPerConnection =
      o.maxQueriesPerConnection ?? DNS_DEFAULTS.maxQueriesPerConnection;
    this.limits = new ClientLimits({
      maxInFlight: o.maxInFlightPerClient ?? DNS_DEFAULTS.maxInFlightPerClient,
      queriesPerSecond: o.clientQueriesPerSecond ?? DNS_DEFAULTS.clientQueriesPerSecond,
      burst: o.clientBurst ?? DNS_DEFAULTS.clientBurst,
      maxTcpConnections: o.maxTcpConnectionsPerClient ?? DNS_DEFAULTS.maxTcpConnectionsPerClient,
      maxClients: o.maxClients ?? DNS_DEFAULTS.maxClients,
    });
    this.sweeper = setInterval(() => this.limits.sweep(), SWEEP_MS).unref();
  }

  static async start(o: DnsForwarderOptions): Promise<DnsForwarder> {
    const f = new DnsForwarder(o);
    const port = o.port ?? DNS_DEFAULTS.port;
    const attempts = o.bindAttempts ?? DNS_DEFAULTS.bindAttempts;
    const retryMs = o.bindRetryMs ?? DNS_DEFAULTS.bindRetryMs;
    try {
      for (const address of o.listen) {
        const socket = await bindWithRetries(attempts, retryMs, () => bindUdp(address, port));
        f.serveUdp(socket);
        const server = net.createServer((c) => f.serveTcp(c));
        server.maxConnections = o.maxTcpConnections ?? DNS_DEFAULTS.maxTcpConnections;
        await bindWithRetries(attempts, retryMs, () => listenTcp(server, address, port));
        f.tcp.push(server);
        // After a successful listen: a transient accept error must not take the resolver down.
        server.on('error', (e: NodeJS.ErrnoException) =>
          o.log.warn({ code: e.code }, 'DNS resolver TCP error'),
        );
      }
    } catch (e) {
      await f.close();
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new Error(`the DNS resolver cannot listen on port ${port}: ${code}`, { cause: e });
    }
    return f;
  }

  listening(): Listening[] {
    return this.udp.map((s, i) => ({
      address: s.address().address,
      udpPort: s.address().port,
      tcpPort: (this.tcp[i]?.address() as net.AddressInfo | null)?.port ?? 0,
    }));
  }

  counters(): DnsCounters {
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
      this.o.log.warn({ code: e.code }, 'DNS resolver UDP error'),
    );
  }

  private serveTcp(conn: net.Socket): void {
    const client = conn.remoteAddress;
    if (this.closed || client === undefined || !this.served(client)) return void conn.destroy();
    // Over its share the device's connection goes at once: one device must not hold them all.
    if (!this.limits.takeConnection(client)) return void conn.destroy();
    this.connections.add(conn);
    // However busy: a device that trickles queries must not hold its connections for ever.
    const lifetime = setTimeout(() => conn.destroy(), this.tcpMaxLifetimeMs);
    let buffered: Buffer = Buffer.alloc(0);
    let open = 0;
    const drain = () => {
      const room = this.maxQueriesPerConnection - open;
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
      if (open >= this.maxQueriesPerConnection) conn.pause();
    };
    conn.setNoDelay(true);
    conn.setTimeout(this.tcpIdleMs, () => conn.destroy());
    conn.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      drain();
    });
    conn.on('error', () => {});
    conn.on('close', () => {
      clearTimeout(lifetime);
      this.connections.delete(conn);
      this.limits.connectionClosed(client);
    });
  }

  private served(address: string | undefined): boolean {
    if (!this.o.clients) return true;
    if (address === undefined) return false;
    return this.o.clients.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  }

  /**
   * Takes a client's query; false when it is dropped. `onDone` runs when a taken one ends. The
   * device's own bounds come first, so that a device over them takes nothing of the others'.
   */
  private take(
    query: Query | undefined,
    transport: Transport,
    client: string,
    reply: (message: Buffer) => void,
    onDone?: () => void,
  ): boolean {
    if (!query || this.closed || !this.limits.takeQuery(client)) {
      this.counts.dropped++;
      return false;
    }
    if (this.inFlight.size >= this.maxInFlight) {
      this.limits.queryDone(client);
      this.counts.dropped++;
      return false;
    }
    this.counts.queries++;
    const p: Pending = {
      query,
      transport,
      client,
      reply,
      tried: 0,
      deadline: setTimeout(() => this.fail(p), this.timeoutMs),
      ...(onDone ? { onDone } : {}),
    };
    this.inFlight.add(p);
    this.next(p);
    return true;
  }

  /** Sends the query to the next upstream not tried yet, or fails it when none is left. */
  private next(p: Pending): void {
    const upstreams = this.o.upstreams;
    if (p.tried >= upstreams.length) return this.fail(p);
    const index = (this.preferred + p.tried) % upstreams.length;
    p.tried++;
    // The budget is shared, so that every upstream gets its turn before the client gives up.
    const timer = setTimeout(() => {
      stop();
      this.next(p);
    }, this.timeoutMs / upstreams.length);
    const ask = p.transport === 'udp' ? askUdp : askTcp;
    const stop = ask(upstreams[index]!, p.query, (r) => {
      clearTimeout(timer);
      if (!this.inFlight.has(p)) return;
      if (r.kind === 'failed') return this.next(p);
      // Another upstream may know better than one that refuses or fails; the last one's word
      // goes to the client.
      if ((r.rcode === 'SERVFAIL' || r.rcode === 'REFUSED') && p.tried < upstreams.length)
        return this.next(p);
      if (r.rcode !== 'SERVFAIL' && r.rcode !== 'REFUSED') this.preferred = index;
      this.counts.answered++;
      this.settle(p);
      p.reply(withId(r.answer, p.query.id));
    });
    p.cancel = () => {
      clearTimeout(timer);
      stop();
    };
  }

  private fail(p: Pending): void {
    if (!this.inFlight.has(p)) return;
    this.counts.failed++;
    this.settle(p);
    p.reply(servfail(p.query));
  }

  /** Ends a query's timers and its upstream attempt. */
  private settle(p: Pending): void {
    if (!this.inFlight.delete(p)) return;
    this.limits.queryDone(p.client);
    clearTimeout(p.deadline);
    p.cancel?.();
    p.onDone?.();
  }
}

/**
 * One attempt over UDP from a socket of its own: a fresh random source port as well as a fresh
 * ID, so that an off-path answer has 32 bits to guess (RFC 5452), and a connected socket, so
 * that an upstream that is down says so at once (ICMP port unreachable). Returns a canceller.
 */
function askUdp(up: Upstream, q: Query, done: (r: AttemptResult) => void): () => void {
  const id = randomInt(0, 65536);
  const socket = dgram.createSocket(net.isIPv6(up.address) ? 'udp6' : 'udp4');
  let over = false;
  const end = (r?: AttemptResult) => {
    if (over) return;
    over = true;
    socket.close();
    if (r) done(r);
  };
  socket.on('error', () => end({ kind: 'failed' }));
  socket.on('message', (message) => {
    const rcode = answerTo(message, id, q.question);
    // Anything else is ignored, not taken as the end: a spoofer must not cut the real answer off.
    if (rcode !== undefined) end({ kind: 'answer', answer: message, rcode });
  });
  // The callback has the error of a connect that failed (documented, but not in the types).
  socket.connect(up.port, up.address, (e?: Error) => {
    if (over) return;
    if (e) return end({ kind: 'failed' });
    socket.send(withId(q.raw, id), (e) => {
      if (e) end({ kind: 'failed' });
    });
  });
  return () => end();
}

/** One attempt over TCP, on a connection of its own. Returns a canceller. */
function askTcp(up: Upstream, q: Query, done: (r: AttemptResult) => void): () => void {
  const id = randomInt(0, 65536);
  const conn = net.connect({ host: up.address, port: up.port });
  let buffered: Buffer = Buffer.alloc(0);
  let over = false;
  const end = (r?: AttemptResult) => {
    if (over) return;
    over = true;
    conn.destroy();
    if (r) done(r);
  };
  conn.setNoDelay(true);
  conn.on('connect', () => conn.write(frame(withId(q.raw, id))));
  conn.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const { messages } = takeMessages(buffered, 1);
    const message = messages[0];
    if (!message) return;
    const rcode = answerTo(message, id, q.question);
    end(rcode === undefined ? { kind: 'failed' } : { kind: 'answer', answer: message, rcode });
  });
  conn.on('error', () => end({ kind: 'failed' }));
  conn.on('close', () => end({ kind: 'failed' }));
  return () => end();
}
