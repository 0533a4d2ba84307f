// The listening side with an injected answerer (the relay's forwarder covers the rest through
// relay/dns/forwarder.test.ts): the answer goes out under the client's ID, no answer or a
// throwing answerer is a SERVFAIL, the deadline and close abort the answering, and every query
// a client's bounds let in is handed back to them.
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DnsServer, type AnswerQuery, type ClientBounds } from './dns-server.js';

const log = pino({ level: 'silent' });
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function startServer(answer: AnswerQuery, bounds?: ClientBounds, timeoutMs = 2_000) {
  const server = await DnsServer.start({
    listen: ['127.0.0.1'],
    port: 0,
    answer,
    ...(bounds ? { bounds } : {}),
    log,
    timeoutMs,
    maxInFlight: 16,
    maxTcpConnections: 4,
    tcpIdleMs: 1_000,
    tcpMaxLifetimeMs: 5_000,
    maxQueriesPerConnection: 4,
    bindAttempts: 1,
    bindRetryMs: 10,
  });
  closers.push(() => server.close());
  return { server, port: server.listening()[0]!.udpPort };
}

const query = (id: number) =>
  dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name: 'x.example' }] });

/** Sends one query from a socket of its own; resolves with the answer, or undefined. */
async function ask(port: number, id: number, waitMs = 1_000) {
  const client = dgram.createSocket('udp4');
  closers.push(() => new Promise<void>((r) => client.close(() => r())));
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', r));
  const answer = new Promise<dnsPacket.DecodedPacket>((r) =>
    client.once('message', (m) => r(dnsPacket.decode(m))),
  );
  client.send(query(id), port, '127.0.0.1');
  let timer: NodeJS.Timeout | undefined;
  const got = await Promise.race([
    answer,
    new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), waitMs))),
  ]);
  clearTimeout(timer);
  return got;
}

const rcodeOf = (p: dnsPacket.DecodedPacket | undefined) => (p as { rcode?: string }).rcode;

describe('DnsServer', () => {
  it("relays the answerer's message under the client's ID", async () => {
    const { port, server } = await startServer(async (q) =>
      dnsPacket.encode({ type: 'response', id: 999, questions: [q.question] }),
    );
    const got = await ask(port, 0x2222);
    expect(got).toMatchObject({ id: 0x2222, type: 'response' });
    expect(server.counters()).toEqual({ queries: 1, answered: 1, failed: 0, dropped: 0 });
  });

  it('answers SERVFAIL when the answerer has nothing or throws', async () => {
    let calls = 0;
    const { port, server } = await startServer(async () => {
      if (calls++ === 0) return null;
      throw new Error('x.example broke it');
    });
    expect(rcodeOf(await ask(port, 1))).toBe('SERVFAIL');
    expect(rcodeOf(await ask(port, 2))).toBe('SERVFAIL');
    expect(server.counters()).toMatchObject({ queries: 2, answered: 0, failed: 2 });
  });

  it('aborts the answering at the deadline and answers SERVFAIL', async () => {
    let aborted = false;
    const { port, server } = await startServer(
      (_q, _t, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve(null);
          }),
        ),
      undefined,
      100,
    );
    expect(rcodeOf(await ask(port, 3))).toBe('SERVFAIL');
    expect(aborted).toBe(true);
    expect(server.counters()).toMatchObject({ queries: 1, failed: 1 });
  });

  it('gives each query back to the bounds that let it in, and drops what they refuse', async () => {
    const events: string[] = [];
    let allow = true;
    const bounds: ClientBounds = {
      takeQuery: (client) => (events.push(`take ${client}`), allow),
      queryDone: (client) => void events.push(`done ${client}`),
      takeConnection: () => true,
      connectionClosed: () => {},
      sweep: () => {},
    };
    const { port, server } = await startServer(async () => null, bounds);
    await ask(port, 4);
    allow = false;
    expect(await ask(port, 5, 200)).toBeUndefined();
    expect(events).toEqual(['take 127.0.0.1', 'done 127.0.0.1', 'take 127.0.0.1']);
    expect(server.counters()).toMatchObject({ queries: 1, dropped: 1 });
  });

  it('aborts the answering on close without an answer', async () => {
    let signal: AbortSignal | undefined;
    const { port, server } = await startServer(
      (_q, _t, s) => ((signal = s), new Promise(() => {})),
    );
    const pending = ask(port, 6, 300);
    while (!signal) await new Promise((r) => setTimeout(r, 10));
    await server.close();
    expect(signal.aborted).toBe(true);
    expect(await pending).toBeUndefined();
  });
});
