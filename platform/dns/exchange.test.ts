// One exchange with a fake upstream on loopback: the answer comes back over UDP and over TCP
// under the upstream's ID, a spoofed answer is passed over, an abort ends it at once with its
// socket released, and the sockets used are the ones the caller gives.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, PLAIN_SOCKETS, type ExchangeSockets } from './exchange.js';
import { frame, parseQuery, takeMessages, type DnsQuery } from './wire.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

type Behaviour = 'answer' | 'silent' | 'spoof-first';

const question = { type: 'A', name: 'www.example' } as const;

function queryOf(id: number): DnsQuery {
  const raw = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [question],
  });
  return parseQuery(raw)!;
}

function answerTo(q: dnsPacket.DecodedPacket, o: { id?: number; name?: string } = {}): Buffer {
  const name = o.name ?? q.questions![0]!.name;
  return dnsPacket.encode({
    type: 'response',
    id: o.id ?? q.id ?? 0,
    flags: dnsPacket.RECURSION_AVAILABLE,
    questions: [{ type: 'A', name }],
    answers: [{ type: 'A', name, ttl: 60, data: '192.0.2.1' }],
  });
}

/** A UDP resolver on loopback; `seen` has the IDs of the queries it got. */
async function udpUpstream(behaviour: Behaviour) {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => socket.close(() => r())));
  const seen: number[] = [];
  socket.on('message', (m, from) => {
    const q = dnsPacket.decode(m);
    seen.push(q.id ?? 0);
    const send = (a: Buffer) => socket.send(a, from.port, from.address);
    if (behaviour === 'silent') return;
    if (behaviour === 'spoof-first') {
      send(answerTo(q, { id: ((q.id ?? 0) + 1) % 65536 }));
      send(answerTo(q, { name: 'evil.example' }));
    }
    send(answerTo(q));
  });
  return { port: socket.address().port, seen };
}

/** A TCP resolver on loopback; `closed` counts the connections that ended. */
async function tcpUpstream(behaviour: Behaviour) {
  const seen: number[] = [];
  const state = { closed: 0 };
  const server = net.createServer((c) => {
    let buffered: Buffer = Buffer.alloc(0);
    c.on('data', (d: Buffer) => {
      const { messages, rest } = takeMessages(Buffer.concat([buffered, d]), Infinity);
      buffered = rest;
      for (const m of messages) {
        const q = dnsPacket.decode(m);
        seen.push(q.id ?? 0);
        if (behaviour !== 'silent') c.write(frame(answerTo(q)));
      }
    });
    c.on('error', () => {});
    c.on('close', () => state.closed++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as net.AddressInfo).port, seen, state };
}

/** PLAIN_SOCKETS, counting each socket it hands out and whether it was released. */
function countingSockets() {
  const udp: { socket: dgram.Socket; closed: boolean }[] = [];
  const tcp: net.Socket[] = [];
  const sockets: ExchangeSockets = {
    udp: (family) => {
      const made = { socket: PLAIN_SOCKETS.udp(family), closed: false };
      made.socket.on('close', () => (made.closed = true));
      udp.push(made);
      return made.socket;
    },
    tcp: async (address, port, signal) => {
      const conn = await PLAIN_SOCKETS.tcp(address, port, signal);
      tcp.push(conn);
      return conn;
    },
  };
  return { sockets, udp, tcp };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = () => new AbortController().signal;

describe('exchange', () => {
  it("returns the UDP answer under the upstream's ID, on a socket it then closes", async () => {
    const up = await udpUpstream('answer');
    const { sockets, udp, tcp } = countingSockets();
    const r = await exchange(
      { address: '127.0.0.1', port: up.port },
      queryOf(0x1234),
      'udp',
      never(),
      sockets,
    );
    expect(r).toMatchObject({ kind: 'answer', rcode: 'NOERROR' });
    if (r.kind !== 'answer') return;
    expect(up.seen).toHaveLength(1);
    expect(dnsPacket.decode(r.answer).id).toBe(up.seen[0]);
    expect([udp.length, tcp.length]).toEqual([1, 0]);
    await tick(0);
    expect(udp[0]!.closed).toBe(true);
  });

  it('returns the TCP answer, on a connection it then destroys', async () => {
    const up = await tcpUpstream('answer');
    const { sockets, udp, tcp } = countingSockets();
    const r = await exchange(
      { address: '127.0.0.1', port: up.port },
      queryOf(0x1234),
      'tcp',
      never(),
      sockets,
    );
    expect(r).toMatchObject({ kind: 'answer', rcode: 'NOERROR' });
    if (r.kind !== 'answer') return;
    expect(dnsPacket.decode(r.answer)).toMatchObject({ id: up.seen[0], questions: [question] });
    expect([udp.length, tcp.length]).toEqual([0, 1]);
    expect(tcp[0]!.destroyed).toBe(true);
  });

  it('passes over an answer with another ID or question and takes the real one', async () => {
    const up = await udpUpstream('spoof-first');
    const r = await exchange({ address: '127.0.0.1', port: up.port }, queryOf(1), 'udp', never());
    expect(r.kind).toBe('answer');
    if (r.kind !== 'answer') return;
    expect(dnsPacket.decode(r.answer)).toMatchObject({ id: up.seen[0], questions: [question] });
  });

  it('fails at once when nothing listens on the UDP port (ICMP unreachable)', async () => {
    const s = dgram.createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
    const port = s.address().port;
    await new Promise<void>((r) => s.close(() => r()));
    const started = Date.now();
    expect(await exchange({ address: '127.0.0.1', port }, queryOf(1), 'udp', never())).toEqual({
      kind: 'failed',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails on abort over UDP and releases its socket', async () => {
    const up = await udpUpstream('silent');
    const { sockets, udp } = countingSockets();
    const abort = new AbortController();
    const pending = exchange(
      { address: '127.0.0.1', port: up.port },
      queryOf(1),
      'udp',
      abort.signal,
      sockets,
    );
    await tick(50);
    expect(up.seen).toHaveLength(1);
    abort.abort();
    expect(await pending).toEqual({ kind: 'failed' });
    await tick(0);
    expect(udp.map((u) => u.closed)).toEqual([true]);
  });

  it('fails on abort over TCP and destroys its connection', async () => {
    const up = await tcpUpstream('silent');
    const { sockets, tcp } = countingSockets();
    const abort = new AbortController();
    const pending = exchange(
      { address: '127.0.0.1', port: up.port },
      queryOf(1),
      'tcp',
      abort.signal,
      sockets,
    );
    await tick(50);
    expect(up.seen).toHaveLength(1);
    abort.abort();
    expect(await pending).toEqual({ kind: 'failed' });
    expect(tcp.map((c) => c.destroyed)).toEqual([true]);
    const deadline = Date.now() + 1_000;
    while (up.state.closed === 0 && Date.now() < deadline) await tick(10);
    expect(up.state.closed).toBe(1);
  });

  it('asks for no socket when already aborted', async () => {
    const { sockets, udp, tcp } = countingSockets();
    const abort = new AbortController();
    abort.abort();
    for (const transport of ['udp', 'tcp'] as const)
      expect(
        await exchange(
          { address: '127.0.0.1', port: 9 },
          queryOf(1),
          transport,
          abort.signal,
          sockets,
        ),
      ).toEqual({ kind: 'failed' });
    expect([udp.length, tcp.length]).toEqual([0, 0]);
  });
});
