// The responder on a real UDP socket (loopback): a probe gets its answer, anything else none.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeProbeRequest, openProbeReply } from '../../platform/probes/latency-probe.js';
import { hmacSha256 } from './probe-gate.js';
import { ProbeResponder } from './responder.js';

const key = randomBytes(32);
let responder: ProbeResponder | undefined;
let client: dgram.Socket | undefined;
afterEach(async () => {
  await responder?.close();
  client?.close();
  responder = client = undefined;
});

/** Sends each datagram and collects what comes back within `waitMs`. */
async function exchange(port: number, datagrams: Uint8Array[], waitMs = 300): Promise<Buffer[]> {
  client = dgram.createSocket('udp4');
  const got: Buffer[] = [];
  client.on('message', (m) => got.push(m));
  await new Promise<void>((r) => client!.bind(0, '127.0.0.1', r));
  for (const d of datagrams) client.send(d, port, '127.0.0.1');
  await new Promise((r) => setTimeout(r, waitMs));
  return got;
}

describe('ProbeResponder', () => {
  it('answers a probe made with its key, and nothing else', async () => {
    responder = await ProbeResponder.start({
      port: 0,
      key: key.toString('base64'),
      log: pino({ level: 'silent' }),
    });
    const nonce = randomBytes(16);
    const good = encodeProbeRequest(key, nonce, Date.now(), hmacSha256);
    const wrongKey = encodeProbeRequest(randomBytes(32), randomBytes(16), Date.now(), hmacSha256);
    const got = await exchange(responder.port, [wrongKey, randomBytes(40), good, good]);
    expect(got).toHaveLength(1);
    expect(Buffer.from(openProbeReply(got[0]!, key, hmacSha256)!)).toEqual(nonce);
    expect(responder.counters()).toMatchObject({
      answered: 1,
      dropped: { invalid: 2, replay: 1 },
    });
  });

  it('follows a new key', async () => {
    responder = await ProbeResponder.start({
      port: 0,
      key: key.toString('base64'),
      log: pino({ level: 'silent' }),
      keyOverlapMs: 0,
    });
    const next = randomBytes(32);
    responder.setKey(next.toString('base64'));
    responder.setKey('not a key');
    const got = await exchange(responder.port, [
      encodeProbeRequest(key, randomBytes(16), Date.now(), hmacSha256),
      encodeProbeRequest(next, randomBytes(16), Date.now(), hmacSha256),
    ]);
    expect(got).toHaveLength(1);
    expect(openProbeReply(got[0]!, next, hmacSha256)).toBeDefined();
  });

  it('answers nothing until it has a key', async () => {
    responder = await ProbeResponder.start({
      port: 0,
      key: null,
      log: pino({ level: 'silent' }),
    });
    const probe = () => encodeProbeRequest(key, randomBytes(16), Date.now(), hmacSha256);
    expect(await exchange(responder.port, [probe()])).toHaveLength(0);
    client?.close();
    responder.setKey(key.toString('base64'));
    expect(await exchange(responder.port, [probe()])).toHaveLength(1);
  });

  it('answers every probe of one source while another floods it with junk', async () => {
    // The budget of all is small here, so that a flood a test can send empties it at once.
    responder = await ProbeResponder.start({
      port: 0,
      key: key.toString('base64'),
      log: pino({ level: 'silent' }),
      rates: {
        perSourcePerSecond: 20,
        perSourceBurst: 40,
        totalPerSecond: 500,
        totalBurst: 500,
        maxSources: 1_000,
      },
    });
    const port = responder.port;
    const flooder = dgram.createSocket('udp4');
    const prober = dgram.createSocket('udp4');
    client = prober;
    await new Promise<void>((r) => flooder.bind(0, '127.0.0.2', r));
    await new Promise<void>((r) => prober.bind(0, '127.0.0.1', r));
    let answers = 0;
    prober.on('message', (m) => {
      if (openProbeReply(m, key, hmacSha256)) answers++;
    });
    const junk = randomBytes(40);
    const tick = () => new Promise((r) => setTimeout(r, 10));
    try {
      // About 5,000 junk datagrams a second for 1.2 s, a probe every 60 ms among them.
      for (let i = 0; i < 120; i++) {
        for (let j = 0; j < 50; j++) flooder.send(junk, port, '127.0.0.1');
        if (i % 6 === 5)
          prober.send(
            encodeProbeRequest(key, randomBytes(16), Date.now(), hmacSha256),
            port,
            '127.0.0.1',
          );
        await tick();
      }
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      flooder.close();
    }
    expect(answers).toBe(20);
    expect(responder.counters().dropped.rate).toBeGreaterThan(5_000);
  });

  it('answers every probe of one source while 200 others flood it with junk', async () => {
    // As spoofed sources would: each within its own rate, together far over the budget of all.
    responder = await ProbeResponder.start({
      port: 0,
      key: key.toString('base64'),
      log: pino({ level: 'silent' }),
      rates: {
        perSourcePerSecond: 20,
        perSourceBurst: 40,
        totalPerSecond: 100,
        totalBurst: 100,
        maxSources: 1_000,
      },
    });
    const port = responder.port;
    const flooders = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const s = dgram.createSocket('udp4');
        await new Promise<void>((r) => s.bind(0, `127.0.1.${i + 1}`, r));
        return s;
      }),
    );
    const prober = dgram.createSocket('udp4');
    client = prober;
    await new Promise<void>((r) => prober.bind(0, '127.0.0.1', r));
    let answers = 0;
    prober.on('message', (m) => {
      if (openProbeReply(m, key, hmacSha256)) answers++;
    });
    const junk = randomBytes(40);
    try {
      // 200 sources, 20 junk datagrams each (within their bursts): 4,000 in all, then the probes.
      for (let round = 0; round < 20; round++) {
        for (const f of flooders) f.send(junk, port, '127.0.0.1');
        await new Promise((r) => setTimeout(r, 5));
      }
      // Until the responder has read all the flood that fitted in its socket's buffer.
      const seen = () => Object.values(responder!.counters().dropped).reduce((a, b) => a + b, 0);
      for (let last = -1; seen() !== last;) {
        last = seen();
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 20; i++)
        prober.send(
          encodeProbeRequest(key, randomBytes(16), Date.now(), hmacSha256),
          port,
          '127.0.0.1',
        );
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      for (const f of flooders) f.close();
    }
    expect(answers).toBe(20);
    // The junk reached the MAC check (each source was within its rate), ten times the budget
    // of all and more (what the socket's buffer held of it), and spent nothing of it.
    expect(responder.counters().dropped.invalid).toBeGreaterThan(1_000);
  });

  it('forgets a source once its rate limit needs it no more', async () => {
    responder = await ProbeResponder.start({
      port: 0,
      key: key.toString('base64'),
      log: pino({ level: 'silent' }),
      sweepMs: 50,
    });
    await exchange(responder.port, [randomBytes(40), randomBytes(40)], 20);
    expect(responder.trackedSources).toBe(1);
    // Two tokens back at 20 a second: full again within 100 ms, gone at the next sweep.
    await vi.waitFor(() => expect(responder!.trackedSources).toBe(0), { timeout: 1_000 });
  });

  it('refuses a malformed key at start', async () => {
    await expect(
      ProbeResponder.start({ port: 0, key: 'AAAA', log: pino({ level: 'silent' }) }),
    ).rejects.toThrow(/32 bytes/);
  });
});
