// The relay's resolver on loopback between a real client socket and real upstream servers
// (dns-packet over UDP and TCP): answers reach the right client with its own ID, junk gets
// nothing, a silent or dead upstream costs a SERVFAIL or the next upstream, and the bounds hold,
// those of each device (a source address: 127.0.0.2, 127.0.0.3 here) as well as those of all.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DNS_DEFAULTS, DnsForwarder, deviceRanges, type DnsForwarderOptions } from './forwarder.js';

const log = pino({ level: 'silent' });
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

type Behaviour = 'answer' | 'silent' | 'refuse' | 'truncate-udp' | 'spoof-first' | 'slow';

/** How long a 'slow' upstream takes to answer (a resolver busy with names that time out). */
const SLOW_MS = 1_000;

interface FakeUpstream {
  port: number;
  /** Every query it received: over which transport, with which ID, for which name. */
  seen: { transport: 'udp' | 'tcp'; id: number; name: string }[];
}

/** A resolver that answers every A query with `address` (or as `behaviour` says). */
async function startUpstream(address: string, behaviour: Behaviour = 'answer') {
  const answerFor = (q: dnsPacket.DecodedPacket, tc: boolean): Buffer =>
    dnsPacket.encode({
      type: 'response',
      id: q.id ?? 0,
      flags:
        dnsPacket.RECURSION_AVAILABLE |
        (behaviour === 'refuse' ? 5 : 0) |
        (tc ? dnsPacket.TRUNCATED_RESPONSE : 0),
      questions: q.questions ?? [],
      answers:
        behaviour === 'refuse' || tc
          ? []
          : [{ type: 'A', name: q.questions![0]!.name, ttl: 60, data: address }],
    });
  const seen: FakeUpstream['seen'] = [];
  const note = (transport: 'udp' | 'tcp', q: dnsPacket.DecodedPacket) =>
    seen.push({ transport, id: q.id ?? 0, name: q.questions?.[0]?.name ?? '' });
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const port = udp.address().port;
    udp.on('message', (m, from) => {
      const q = dnsPacket.decode(m);
      note('udp', q);
      if (behaviour === 'silent') return;
      if (behaviour === 'spoof-first') {
        // Another ID, then the right ID for another name: neither may reach the client.
        udp.send(
          answerFor({ ...q, id: ((q.id ?? 0) + 1) % 65536 }, false),
          from.port,
          from.address,
        );
        udp.send(
          answerFor({ ...q, questions: [{ type: 'A', name: 'evil.example' }] }, false),
          from.port,
          from.address,
        );
      }
      if (behaviour === 'slow') {
        const t = setTimeout(() => udp.send(answerFor(q, false), from.port, from.address), SLOW_MS);
        closers.push(() => clearTimeout(t));
        return;
      }
      udp.send(answerFor(q, behaviour === 'truncate-udp'), from.port, from.address);
    });
    const tcp = net.createServer((c) => {
      let buf = Buffer.alloc(0);
      c.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const q = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0)));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
          note('tcp', q);
          if (behaviour !== 'silent') {
            const a = answerFor(q, false);
            const len = Buffer.alloc(2);
            len.writeUInt16BE(a.length);
            c.write(Buffer.concat([len, a]));
          }
        }
      });
      c.on('error', () => {});
    });
    const bound = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) {
      udp.close();
      if (attempt < 10) continue;
      throw new Error('no port free for UDP and TCP both');
    }
    closers.push(
      () => new Promise<void>((r) => udp.close(() => r())),
      () => new Promise<void>((r) => tcp.close(() => r())),
    );
    return { port, seen } satisfies FakeUpstream;
  }
}

/** A port where nothing listens: the kernel answers ICMP port unreachable. */
async function deadPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startForwarder(
  upstreams: number[],
  o: Partial<DnsForwarderOptions> = {},
): Promise<{ forwarder: DnsForwarder; udpPort: number; tcpPort: number }> {
  const forwarder = await DnsForwarder.start({
    listen: ['127.0.0.1'],
    port: 0,
    upstreams: upstreams.map((port) => ({ address: '127.0.0.1', port })),
    log,
    ...o,
  });
  closers.push(() => forwarder.close());
  const [l] = forwarder.listening();
  return { forwarder, udpPort: l!.udpPort, tcpPort: l!.tcpPort };
}

const query = (id: number, name: string, flags = dnsPacket.RECURSION_DESIRED) =>
  dnsPacket.encode({ type: 'query', id, flags, questions: [{ type: 'A', name }] });

/**
 * A client socket of its own: sends each datagram, collects what comes back within `waitMs`
 * (or until `expected` answers are in).
 */
async function udpExchange(port: number, datagrams: Buffer[], waitMs = 300, expected = Infinity) {
  const client = dgram.createSocket('udp4');
  closers.push(() => new Promise<void>((r) => client.close(() => r())));
  const got: dnsPacket.DecodedPacket[] = [];
  let enough = () => {};
  const done = new Promise<void>((r) => (enough = r));
  client.on('message', (m) => {
    got.push(dnsPacket.decode(m));
    if (got.length >= expected) enough();
  });
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', r));
  for (const d of datagrams) client.send(d, port, '127.0.0.1');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
  clearTimeout(timer);
  return got;
}

/** Sends `messages` on one TCP connection; resolves with the first `expect` answers. */
function tcpExchange(port: number, messages: Buffer[], expected: number, from = '127.0.0.1') {
  return new Promise<dnsPacket.DecodedPacket[]>((resolve, reject) => {
    const c = net.connect({ port, host: '127.0.0.1', localAddress: from });
    const got: dnsPacket.DecodedPacket[] = [];
    let buf = Buffer.alloc(0);
    c.on('connect', () => {
      for (const m of messages) {
        const len = Buffer.alloc(2);
        len.writeUInt16BE(m.length);
        c.write(Buffer.concat([len, m]));
      }
    });
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        got.push(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
      }
      if (got.length >= expected) {
        c.destroy();
        resolve(got);
      }
    });
    c.on('error', reject);
    c.on('close', () => reject(new Error(`connection closed after ${got.length} answers`)));
  });
}

const rcodeOf = (p: dnsPacket.DecodedPacket) => (p as { rcode?: string }).rcode;
const addressesOf = (p: dnsPacket.DecodedPacket) =>
  (p.answers ?? []).map((a) => (a as dnsPacket.StringAnswer).data);

describe('DnsForwarder', () => {
  it("answers over UDP with the upstream's answer under each client's own ID", async () => {
    const up = await startUpstream('192.0.2.1');
    const { udpPort, forwarder } = await startForwarder([up.port]);
    // Two clients that happen to use the same ID each get the answer to their own question.
    const [a, b] = await Promise.all([
      udpExchange(udpPort, [query(0x1234, 'one.example')], 3000, 1),
      udpExchange(udpPort, [query(0x1234, 'two.example')], 3000, 1),
    ]);
    for (const [got, name] of [
      [a!, 'one.example'],
      [b!, 'two.example'],
    ] as const) {
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ id: 0x1234, type: 'response', questions: [{ name }] });
      expect(addressesOf(got[0]!)).toEqual(['192.0.2.1']);
    }
    expect(up.seen.map((s) => s.name).sort()).toEqual(['one.example', 'two.example']);
    // Fresh IDs upstream: a client's ID says nothing about which upstream query is whose.
    expect(up.seen.every((s) => s.transport === 'udp')).toBe(true);
    expect(new Set(up.seen.map((s) => s.id)).size).toBe(2);
    expect(forwarder.counters()).toEqual({ queries: 2, answered: 2, failed: 0, dropped: 0 });
  });

  it('answers nothing that is not one well-formed query', async () => {
    const up = await startUpstream('192.0.2.1');
    const { udpPort, forwarder } = await startForwarder([up.port]);
    const response = dnsPacket.encode({
      type: 'response',
      id: 7,
      questions: [{ type: 'A', name: 'x.example' }],
    });
    const twoQuestions = dnsPacket.encode({
      type: 'query',
      id: 8,
      questions: [
        { type: 'A', name: 'x.example' },
        { type: 'A', name: 'y.example' },
      ],
    });
    const noQuestion = dnsPacket.encode({ type: 'query', id: 9, questions: [] });
    // Opcode 4 (NOTIFY) in the flags.
    const notify = dnsPacket.encode({
      type: 'query',
      id: 10,
      flags: 4 << 11,
      questions: [{ type: 'SOA', name: 'x.example' }],
    });
    const junk = [
      Buffer.from('hello'),
      Buffer.alloc(40, 0xff),
      query(11, 'x.example').subarray(0, 20),
    ];
    const got = await udpExchange(udpPort, [response, twoQuestions, noQuestion, notify, ...junk]);
    expect(got).toEqual([]);
    expect(up.seen).toEqual([]);
    expect(forwarder.counters()).toMatchObject({ queries: 0, dropped: 7 });
    // The same socket still serves a real query.
    expect(await udpExchange(udpPort, [query(12, 'x.example')], 3000, 1)).toHaveLength(1);
  });

  it('does not relay an upstream answer with another ID or for another question', async () => {
    const up = await startUpstream('192.0.2.1', 'spoof-first');
    const { udpPort } = await startForwarder([up.port]);
    const got = await udpExchange(udpPort, [query(0x4242, 'real.example')], 3000, 1);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ id: 0x4242, questions: [{ name: 'real.example' }] });
    expect(addressesOf(got[0]!)).toEqual(['192.0.2.1']);
  });

  it('answers SERVFAIL when the upstream stays silent', async () => {
    const up = await startUpstream('192.0.2.1', 'silent');
    const { udpPort, forwarder } = await startForwarder([up.port], { timeoutMs: 200 });
    const got = await udpExchange(udpPort, [query(0x0101, 'slow.example')], 3000, 1);
    expect(up.seen).toHaveLength(1);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      id: 0x0101,
      type: 'response',
      flag_rd: true,
      questions: [{ type: 'A', name: 'slow.example' }],
      answers: [],
    });
    expect(rcodeOf(got[0]!)).toBe('SERVFAIL');
    expect(forwarder.counters()).toMatchObject({ queries: 1, answered: 0, failed: 1 });
  });

  it('asks the next upstream when the first is down', async () => {
    const second = await startUpstream('192.0.2.2');
    // A timeout longer than the wait: only the first upstream's ICMP error moves the query on.
    const { udpPort } = await startForwarder([await deadPort(), second.port], {
      timeoutMs: 20_000,
    });
    const got = await udpExchange(udpPort, [query(1, 'a.example')], 5000, 1);
    expect(got).toHaveLength(1);
    expect(addressesOf(got[0]!)).toEqual(['192.0.2.2']);
  });

  it('asks the next upstream when the first is silent or refuses, and keeps to the one that answers', async () => {
    const silent = await startUpstream('192.0.2.1', 'silent');
    const refusing = await startUpstream('192.0.2.2', 'refuse');
    const good = await startUpstream('192.0.2.3');
    const { udpPort } = await startForwarder([silent.port, refusing.port, good.port], {
      timeoutMs: 900,
    });
    const first = await udpExchange(udpPort, [query(1, 'a.example')], 3000, 1);
    expect(first).toHaveLength(1);
    expect(addressesOf(first[0]!)).toEqual(['192.0.2.3']);
    expect([silent.seen.length, refusing.seen.length, good.seen.length]).toEqual([1, 1, 1]);
    const second = await udpExchange(udpPort, [query(2, 'b.example')], 3000, 1);
    expect(addressesOf(second[0]!)).toEqual(['192.0.2.3']);
    expect([silent.seen.length, refusing.seen.length, good.seen.length]).toEqual([1, 1, 2]);
  });

  it("passes the last upstream's refusal on when no upstream knows better", async () => {
    const refusing = await startUpstream('192.0.2.2', 'refuse');
    const { udpPort } = await startForwarder([refusing.port]);
    const got = await udpExchange(udpPort, [query(3, 'elsewhere.example')], 3000, 1);
    expect(got).toHaveLength(1);
    expect(rcodeOf(got[0]!)).toBe('REFUSED');
  });

  it('answers several queries on one TCP connection, asking upstream over TCP', async () => {
    const up = await startUpstream('192.0.2.1');
    const { tcpPort } = await startForwarder([up.port]);
    const got = await tcpExchange(tcpPort, [query(21, 'one.example'), query(22, 'two.example')], 2);
    expect(got.map((p) => [p.id, p.questions![0]!.name, addressesOf(p)]).sort()).toEqual([
      [21, 'one.example', ['192.0.2.1']],
      [22, 'two.example', ['192.0.2.1']],
    ]);
    expect(up.seen.map((s) => s.transport)).toEqual(['tcp', 'tcp']);
  });

  it('passes a truncated UDP answer on as it is, and the full answer over TCP', async () => {
    const up = await startUpstream('192.0.2.1', 'truncate-udp');
    const { udpPort, tcpPort } = await startForwarder([up.port]);
    const [udp] = await udpExchange(udpPort, [query(31, 'big.example')], 3000, 1);
    expect(udp).toMatchObject({ id: 31, flag_tc: true, answers: [] });
    const [tcp] = await tcpExchange(tcpPort, [query(32, 'big.example')], 1);
    expect(tcp).toMatchObject({ id: 32, flag_tc: false });
    expect(addressesOf(tcp!)).toEqual(['192.0.2.1']);
  });

  it('drops queries beyond the in-flight bound', async () => {
    const up = await startUpstream('192.0.2.1', 'silent');
    const { udpPort, forwarder } = await startForwarder([up.port], {
      maxInFlight: 3,
      timeoutMs: 300,
    });
    const got = await udpExchange(
      udpPort,
      [1, 2, 3, 4, 5].map((id) => query(id, `q${id}.example`)),
      1500,
    );
    expect(up.seen).toHaveLength(3);
    expect(got).toHaveLength(3);
    expect(got.every((p) => rcodeOf(p) === 'SERVFAIL')).toBe(true);
    expect(forwarder.counters()).toMatchObject({ queries: 3, failed: 3, dropped: 2 });
    // Room again once those ended.
    expect(await udpExchange(udpPort, [query(6, 'q6.example')], 3000, 1)).toHaveLength(1);
  });

  it('serves only the sources it is given', async () => {
    const up = await startUpstream('192.0.2.1');
    const others = new net.BlockList();
    others.addAddress('127.0.0.2');
    const { udpPort, tcpPort, forwarder } = await startForwarder([up.port], { clients: others });
    expect(await udpExchange(udpPort, [query(41, 'a.example')])).toEqual([]);
    await expect(tcpExchange(tcpPort, [query(42, 'a.example')], 1)).rejects.toThrow(
      /closed after 0 answers/,
    );
    expect(up.seen).toEqual([]);
    expect(forwarder.counters()).toMatchObject({ queries: 0, dropped: 1 });
  });

  it("takes a node's device ranges as its clients", () => {
    const ranges = deviceRanges('10.64.0.0/10', 'fd66:6572:7279::/48');
    expect(ranges.check('10.64.0.2', 'ipv4')).toBe(true);
    expect(ranges.check('10.127.255.254', 'ipv4')).toBe(true);
    expect(ranges.check('10.128.0.1', 'ipv4')).toBe(false);
    expect(ranges.check('198.18.0.10', 'ipv4')).toBe(false);
    expect(ranges.check('fd66:6572:7279::2', 'ipv6')).toBe(true);
    expect(ranges.check('fd66:6572:727a::2', 'ipv6')).toBe(false);
  });

  it('closes a TCP connection that sends something other than a query', async () => {
    const up = await startUpstream('192.0.2.1');
    const { tcpPort } = await startForwarder([up.port]);
    await expect(tcpExchange(tcpPort, [Buffer.from('GET / HTTP/1.1')], 1)).rejects.toThrow(
      /closed after 0 answers/,
    );
    expect(up.seen).toEqual([]);
  });

  it('gives up binding an address the host does not have, and frees its sockets on close', async () => {
    const up = await startUpstream('192.0.2.1');
    await expect(
      DnsForwarder.start({
        // TEST-NET-1: on no interface of this machine.
        listen: ['127.0.0.1', '192.0.2.1'],
        port: 0,
        upstreams: [{ address: '127.0.0.1', port: up.port }],
        log,
        bindAttempts: 2,
        bindRetryMs: 10,
      }),
    ).rejects.toThrow(/cannot listen.*EADDRNOTAVAIL/);
    const { forwarder, udpPort, tcpPort } = await startForwarder([up.port]);
    await forwarder.close();
    // Both ports are free again at once.
    const again = await startForwarder([up.port]);
    expect(again.udpPort).not.toBe(0);
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => udp.bind(udpPort, '127.0.0.1', r));
    await new Promise<void>((r) => udp.close(() => r()));
    const tcp = net.createServer();
    await new Promise<void>((r) => tcp.listen(tcpPort, '127.0.0.1', r));
    await new Promise<void>((r) => tcp.close(() => r()));
  });
});

/** A device's UDP socket on its own loopback address, collecting every answer it gets. */
async function udpDevice(address: string) {
  const socket = dgram.createSocket('udp4');
  closers.push(() => new Promise<void>((r) => socket.close(() => r())));
  const answers: dnsPacket.DecodedPacket[] = [];
  socket.on('message', (m) => answers.push(dnsPacket.decode(m)));
  await new Promise<void>((r) => socket.bind(0, address, r));
  return { socket, answers };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("DnsForwarder's bounds per device", () => {
  it('answers every query of one device while another floods it over UDP', async () => {
    // A resolver that takes a second per answer: a flood fills the shared in-flight bound at once.
    const up = await startUpstream('192.0.2.1', 'slow');
    const { udpPort, forwarder } = await startForwarder([up.port], {
      maxInFlight: 200,
      timeoutMs: 3_000,
    });
    const flooder = await udpDevice('127.0.0.2');
    const other = await udpDevice('127.0.0.3');
    const started = Date.now();
    let flood = 0;
    // About 2,500 queries a second for 2 s; the other device asks one name every 100 ms.
    for (let i = 0; i < 200; i++) {
      for (let j = 0; j < 25; j++)
        flooder.socket.send(query(flood++ % 65536, `flood${flood}.example`), udpPort, '127.0.0.1');
      if (i % 10 === 0) other.socket.send(query(i, `other${i}.example`), udpPort, '127.0.0.1');
      await tick(10);
    }
    const seconds = (Date.now() - started) / 1000;
    const deadline = Date.now() + SLOW_MS + 2_000;
    while (other.answers.length < 20 && Date.now() < deadline) await tick(50);
    expect(other.answers.map((a) => a.questions![0]!.name).sort()).toEqual(
      Array.from({ length: 20 }, (_, k) => `other${k * 10}.example`).sort(),
    );
    expect(other.answers.every((a) => addressesOf(a)[0] === '192.0.2.1')).toBe(true);
    // The flooder got its own rate and no more.
    await tick(SLOW_MS + 500);
    expect(flood).toBeGreaterThan(4_000);
    expect(flooder.answers.length).toBeGreaterThan(0);
    expect(flooder.answers.length).toBeLessThanOrEqual(
      DNS_DEFAULTS.clientBurst + DNS_DEFAULTS.clientQueriesPerSecond * (seconds + 0.5),
    );
    expect(forwarder.counters().dropped).toBeGreaterThan(3_000);
  });

  it('keeps a query of one device in flight at most its share', async () => {
    const up = await startUpstream('192.0.2.1', 'silent');
    const { udpPort, forwarder } = await startForwarder([up.port], {
      maxInFlight: 100,
      maxInFlightPerClient: 4,
      timeoutMs: 500,
    });
    const a = await udpDevice('127.0.0.2');
    const b = await udpDevice('127.0.0.3');
    for (let id = 0; id < 10; id++)
      a.socket.send(query(id, `a${id}.example`), udpPort, '127.0.0.1');
    await tick(100);
    for (let id = 0; id < 3; id++) b.socket.send(query(id, `b${id}.example`), udpPort, '127.0.0.1');
    await tick(100);
    // Four of a's went upstream, and all three of b's.
    expect(up.seen.filter((s) => s.name.startsWith('a'))).toHaveLength(4);
    expect(up.seen.filter((s) => s.name.startsWith('b'))).toHaveLength(3);
    expect(forwarder.counters()).toMatchObject({ queries: 7, dropped: 6 });
    // Once they ended (SERVFAIL), a has room again.
    await tick(700);
    expect(a.answers).toHaveLength(4);
    a.socket.send(query(11, 'a11.example'), udpPort, '127.0.0.1');
    await tick(100);
    expect(up.seen.filter((s) => s.name.startsWith('a'))).toHaveLength(5);
  });

  it('leaves TCP to the others when one device holds connections open', async () => {
    const up = await startUpstream('192.0.2.1');
    const { tcpPort } = await startForwarder([up.port], { maxTcpConnections: 16 });
    const held: net.Socket[] = [];
    let closedByServer = 0;
    for (let i = 0; i < 40; i++) {
      const c = net.connect({ port: tcpPort, host: '127.0.0.1', localAddress: '127.0.0.2' });
      c.on('error', () => {});
      c.on('close', () => closedByServer++);
      held.push(c);
    }
    closers.push(() => held.forEach((c) => c.destroy()));
    await tick(500);
    // The device keeps its own share of connections; the rest were closed at once.
    expect(closedByServer).toBe(40 - DNS_DEFAULTS.maxTcpConnectionsPerClient);
    const got = await tcpExchange(tcpPort, [query(51, 'other.example')], 1, '127.0.0.3');
    expect(addressesOf(got[0]!)).toEqual(['192.0.2.1']);
  });

  it('closes a TCP connection at the end of its lifetime, however busy it is', async () => {
    const up = await startUpstream('192.0.2.1');
    const { tcpPort } = await startForwarder([up.port], {
      tcpIdleMs: 10_000,
      tcpMaxLifetimeMs: 600,
    });
    const c = net.connect({ port: tcpPort, host: '127.0.0.1', localAddress: '127.0.0.2' });
    closers.push(() => void c.destroy());
    c.on('error', () => {});
    let answers = 0;
    c.on('data', () => answers++);
    const opened = Date.now();
    const closed = new Promise<number>((r) => c.on('close', () => r(Date.now() - opened)));
    await new Promise((r) => c.on('connect', r));
    // A query every 100 ms: never idle.
    const timer = setInterval(() => {
      if (!c.destroyed) c.write(frame(query(61, 'busy.example')));
    }, 100);
    closers.push(() => clearInterval(timer));
    const after = await Promise.race([closed, tick(3_000).then(() => Infinity)]);
    expect(answers).toBeGreaterThan(0);
    expect(after).toBeGreaterThanOrEqual(550);
    expect(after).toBeLessThan(1_500);
  });
});

function frame(message: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(message.length);
  return Buffer.concat([len, message]);
}
