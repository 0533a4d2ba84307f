// The probe responder's decisions: the documented test vector with the real HMAC-SHA256, an
// answer only for a fresh, unseen probe made with the node's key from a source within its rate,
// and key rotation with an overlap.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  PROBE_FRESHNESS_MS,
  encodeProbeReply,
  encodeProbeRequest,
  openProbeReply,
} from '../../platform/probes/latency-probe.js';
import { ProbeGate, hmacSha256 } from './probe-gate.js';
import { ReplayCache } from './replay-cache.js';
import { DEFAULT_RATES, SourceLimiter, sourceKey } from './source-limiter.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const NOW = 1_700_000_000_000;
const key = randomBytes(32);
const probe = (k: Uint8Array = key, ts = NOW, nonce = randomBytes(16)) =>
  encodeProbeRequest(k, nonce, ts, hmacSha256);

describe('the probe format with HMAC-SHA256', () => {
  it('matches the test vector of docs/latency-probes.md', () => {
    const k = Uint8Array.from({ length: 32 }, (_, i) => i);
    const nonce = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
    expect(hex(encodeProbeRequest(k, nonce, 1_700_000_000_000, hmacSha256))).toBe(
      'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf0000018bcfe56800d67b7f737d71703d4225b822b9436c7e',
    );
    expect(hex(encodeProbeReply(k, nonce, hmacSha256))).toBe(
      'a0a1a2a3a4a5a6a7a8a9aaabacadaeaff28fd2597af3a5254f0a270600648c2b',
    );
  });
});

describe('ProbeGate', () => {
  it('answers a probe made with the key, with its nonce under a reply MAC', () => {
    const gate = new ProbeGate(key);
    const nonce = randomBytes(16);
    const reply = gate.answer(probe(key, NOW, nonce), '192.0.2.1', NOW);
    expect(reply).toBeDefined();
    expect(hex(openProbeReply(reply!, key, hmacSha256)!)).toBe(hex(nonce));
    // Never larger than the request: nothing to amplify.
    expect(reply!.length).toBeLessThan(probe().length);
    expect(gate.counters().answered).toBe(1);
  });

  it('answers nothing made without the key: another key, noise, unsigned, truncated, empty', () => {
    const gate = new ProbeGate(key);
    const good = probe();
    const unsigned = Uint8Array.from(good);
    unsigned.fill(0, 24);
    for (const d of [
      probe(randomBytes(32)),
      randomBytes(40),
      unsigned,
      good.subarray(0, 39),
      new Uint8Array([...good, 0]),
      new Uint8Array(0),
      randomBytes(1200),
    ])
      expect(gate.answer(d, '192.0.2.1', NOW)).toBeUndefined();
    expect(gate.counters()).toEqual({
      answered: 0,
      dropped: { rate: 0, invalid: 7, stale: 0, replay: 0, busy: 0 },
    });
  });

  it('answers a probe once: a replay, even from elsewhere, gets nothing', () => {
    const gate = new ProbeGate(key);
    const d = probe();
    expect(gate.answer(d, '192.0.2.1', NOW)).toBeDefined();
    expect(gate.answer(d, '192.0.2.1', NOW + 10)).toBeUndefined();
    expect(gate.answer(d, '198.51.100.7', NOW + 20_000)).toBeUndefined();
    expect(gate.counters().dropped.replay).toBe(2);
  });

  it('answers only probes stamped within the freshness window', () => {
    const gate = new ProbeGate(key);
    expect(gate.answer(probe(key, NOW - PROBE_FRESHNESS_MS - 1), 'a', NOW)).toBeUndefined();
    expect(gate.answer(probe(key, NOW + PROBE_FRESHNESS_MS + 1), 'a', NOW)).toBeUndefined();
    expect(gate.answer(probe(key, NOW - PROBE_FRESHNESS_MS + 1000), 'a', NOW)).toBeDefined();
    expect(gate.answer(probe(key, NOW + PROBE_FRESHNESS_MS - 1000), 'a', NOW)).toBeDefined();
    expect(gate.counters().dropped.stale).toBe(2);
    // A recorded probe replayed once it is stale is refused as stale, long after the cache
    // forgot it.
    const old = probe(key, NOW);
    expect(gate.answer(old, 'a', NOW)).toBeDefined();
    expect(gate.answer(old, 'a', NOW + PROBE_FRESHNESS_MS + 10_000)).toBeUndefined();
  });

  it('limits each source, and not the others', () => {
    const gate = new ProbeGate(key, {
      rates: {
        perSourcePerSecond: 10,
        perSourceBurst: 5,
        totalPerSecond: 1000,
        totalBurst: 1000,
        maxSources: 100,
      },
    });
    const answered = (source: string, at: number, n: number) =>
      Array.from({ length: n }, () => gate.answer(probe(key, at), source, at)).filter(Boolean)
        .length;
    expect(answered('192.0.2.1', NOW, 8)).toBe(5);
    expect(answered('192.0.2.2', NOW, 3)).toBe(3);
    // 10 per second: after 300 ms three more.
    expect(answered('192.0.2.1', NOW + 300, 8)).toBe(3);
    expect(gate.counters().dropped.rate).toBe(8);
    // A flood of garbage is refused by the rate limit before any MAC is computed for it.
    expect(gate.answer(randomBytes(40), '192.0.2.1', NOW + 300)).toBeUndefined();
    expect(gate.counters().dropped.rate).toBe(9);
  });

  it('answers every probe of one prober while 10,000 addresses of one /64 flood it with junk', () => {
    // One IPv6 host holds a whole /64: it is one source, whichever of its addresses it sends from.
    const gate = new ProbeGate(key);
    for (let i = 0; i < 10_000; i++)
      gate.answer(
        randomBytes(40),
        `2001:db8:66:1:${(i >> 8).toString(16)}::${(i & 255).toString(16)}`,
        NOW,
      );
    const answered = Array.from({ length: 20 }, () =>
      gate.answer(probe(key, NOW), '2001:db8:77::1', NOW),
    ).filter(Boolean);
    expect(answered).toHaveLength(20);
    // Its burst of 40 reached the MAC check; the rest was dropped for its own rate.
    expect(gate.counters().dropped.invalid).toBe(DEFAULT_RATES.perSourceBurst);
  });

  it('spends the budget of all only on probes made with the key: spoofed junk spends none', () => {
    // A budget of all that 10,000 spoofed sources would empty 100 times over.
    const gate = new ProbeGate(key, {
      rates: { ...DEFAULT_RATES, totalPerSecond: 10, totalBurst: 100 },
    });
    for (let i = 0; i < 10_000; i++)
      gate.answer(randomBytes(40), `198.51.${i >> 8}.${i & 255}`, NOW);
    expect(gate.counters().dropped.invalid).toBe(10_000);
    const answered = Array.from({ length: 20 }, () =>
      gate.answer(probe(key, NOW), '192.0.2.1', NOW),
    ).filter(Boolean);
    expect(answered).toHaveLength(20);
  });

  it('caps the answers of all sources together', () => {
    const gate = new ProbeGate(key, {
      rates: { ...DEFAULT_RATES, totalPerSecond: 1, totalBurst: 3 },
    });
    const answered = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '2001:db8::1'].filter(
      (source) => gate.answer(probe(key, NOW), source, NOW),
    );
    expect(answered).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3']);
    expect(gate.counters().dropped).toMatchObject({ busy: 2, rate: 0 });
    // A second later the budget has one more.
    expect(gate.answer(probe(key, NOW + 1_000), '192.0.2.9', NOW + 1_000)).toBeDefined();
  });

  it('holds a source only while its rate limit needs it', () => {
    const gate = new ProbeGate(key);
    for (let i = 0; i < 50; i++) gate.answer(probe(key, NOW), '192.0.2.1', NOW);
    gate.answer(probe(key, NOW), '2001:db8:5::1', NOW);
    expect(gate.trackedSources).toBe(2);
    // Still refilling after 1 s (40 tokens at 20 a second): kept; full again at 2 s: forgotten.
    gate.sweep(NOW + 1_000);
    expect(gate.trackedSources).toBe(1);
    gate.sweep(NOW + 2_000);
    expect(gate.trackedSources).toBe(0);
  });

  it('honours the old key for the overlap after a rotation, then only the new one', () => {
    const gate = new ProbeGate(key, { keyOverlapMs: 60_000 });
    const next = randomBytes(32);
    gate.setKey(next, NOW);
    const oldReply = gate.answer(probe(key, NOW + 1000), 'a', NOW + 1000);
    // Answered with the key the probe was made with: the sender can check it.
    expect(openProbeReply(oldReply!, key, hmacSha256)).toBeDefined();
    expect(gate.answer(probe(next, NOW + 1000), 'a', NOW + 1000)).toBeDefined();
    expect(gate.answer(probe(key, NOW + 61_000), 'a', NOW + 61_000)).toBeUndefined();
    expect(gate.answer(probe(next, NOW + 61_000), 'a', NOW + 61_000)).toBeDefined();
    // The same key again changes nothing.
    gate.setKey(next, NOW + 62_000);
    expect(gate.answer(probe(key, NOW + 62_000), 'a', NOW + 62_000)).toBeUndefined();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new ProbeGate(randomBytes(16))).toThrow(RangeError);
    expect(() => new ProbeGate(key).setKey(randomBytes(31), NOW)).toThrow(RangeError);
  });
});

describe('ReplayCache', () => {
  it('forgets nonces once their timestamps are stale, and refuses when full', () => {
    const cache = new ReplayCache(30_000, 3);
    const a = randomBytes(16);
    expect(cache.admit(a, NOW, NOW)).toBe(true);
    expect(cache.admit(a, NOW, NOW)).toBe(false);
    // The same nonce with another timestamp is another probe (its MAC differs).
    expect(cache.admit(a, NOW + 10_000, NOW)).toBe(true);
    expect(cache.admit(randomBytes(16), NOW, NOW)).toBe(true);
    // Full: fail closed.
    expect(cache.admit(randomBytes(16), NOW, NOW)).toBe(false);
    expect(cache.entries).toBe(3);
    // Past the window only the NOW+10 s entry can still matter.
    expect(cache.admit(randomBytes(16), NOW + 36_000, NOW + 36_000)).toBe(true);
    expect(cache.entries).toBe(2);
  });
});

describe('SourceLimiter', () => {
  it('counts an IPv4 address as one source, and an IPv6 /64', () => {
    for (const [address, key] of [
      ['192.0.2.1', '192.0.2.1'],
      ['::ffff:192.0.2.1', '192.0.2.1'],
      ['2001:db8:66:1::5', '2001:db8:66:1::/64'],
      ['2001:db8:66:1:ffff:ffff:ffff:ffff', '2001:db8:66:1::/64'],
      ['2001:0DB8:0066:0001:1::1', '2001:db8:66:1::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['2001:db8:0:1::', '2001:db8:0:1::/64'],
      ['::1', '0:0:0:0::/64'],
      ['::', '0:0:0:0::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
      ['1:2:3:4:5:6:7:8', '1:2:3:4::/64'],
    ] as const)
      expect(sourceKey(address), address).toBe(key);
  });

  it('keys every IPv6 address as its /64 does', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const a = ipaddr.IPv6.parse(address);
        const words = a.parts.slice(0, 4).map((n) => n.toString(16));
        expect(sourceKey(a.toString())).toBe(`${words.join(':')}::/64`);
        expect(sourceKey(address)).toBe(`${words.join(':')}::/64`);
      }),
    );
  });

  it('forgets idle sources to make room, and refuses new ones while all are busy', () => {
    const limiter = new SourceLimiter({
      perSourcePerSecond: 1,
      perSourceBurst: 2,
      totalPerSecond: 1000,
      totalBurst: 1000,
      maxSources: 2,
    });
    expect(limiter.takeSource('192.0.2.1', NOW)).toBe(true);
    expect(limiter.takeSource('2001:db8::1', NOW)).toBe(true);
    // The same /64: the same source.
    expect(limiter.takeSource('2001:db8::2', NOW)).toBe(true);
    expect(limiter.takeSource('192.0.2.3', NOW)).toBe(false);
    // Two seconds on, both have refilled: they go, the new one comes in.
    expect(limiter.takeSource('192.0.2.3', NOW + 2_000)).toBe(true);
    expect(limiter.trackedSources).toBe(1);
  });

  it('keeps the budget of all apart from the sources', () => {
    const limiter = new SourceLimiter({
      perSourcePerSecond: 1,
      perSourceBurst: 1,
      totalPerSecond: 1,
      totalBurst: 3,
      maxSources: 100,
    });
    for (let i = 0; i < 100; i++) limiter.takeSource(`198.51.100.${i}`, NOW);
    expect(Array.from({ length: 5 }, () => limiter.takeAnswer(NOW))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
