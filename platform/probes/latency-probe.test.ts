// The probe datagrams' layout and checks, with a stand-in MAC; the real HMAC-SHA256 and the
// documented test vector are checked in relay/probe.
import { describe, expect, it } from 'vitest';
import {
  PROBE_FRESHNESS_MS,
  PROBE_REPLY_BYTES,
  PROBE_REQUEST_BYTES,
  encodeProbeReply,
  encodeProbeRequest,
  equalTags,
  isFreshProbe,
  openProbeReply,
  openProbeRequest,
  type HmacSha256,
} from './latency-probe.js';

/** Not a MAC: a keyed checksum good enough to tell keys and messages apart in these tests. */
const fakeHmac: HmacSha256 = (key, message) => {
  const out = new Uint8Array(32);
  let h = 2166136261;
  for (let round = 0; round < 32; round++) {
    for (const b of key) h = Math.imul(h ^ b, 16777619) >>> 0;
    for (const b of message) h = Math.imul(h ^ b, 16777619) >>> 0;
    out[round] = h & 0xff;
  }
  return out;
};

const key = Uint8Array.from({ length: 32 }, (_, i) => i);
const otherKey = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const nonce = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
const NOW = 1_700_000_000_000;

describe('probe requests', () => {
  it('are nonce, big-endian milliseconds and a 16-byte tag, and open with the same key', () => {
    const d = encodeProbeRequest(key, nonce, NOW, fakeHmac);
    expect(d.length).toBe(PROBE_REQUEST_BYTES);
    expect([...d.subarray(0, 16)]).toEqual([...nonce]);
    expect(Buffer.from(d.subarray(16, 24)).toString('hex')).toBe('0000018bcfe56800');
    const opened = openProbeRequest(d, key, fakeHmac);
    expect(opened).toEqual({ nonce, timestampMs: NOW });
  });

  it('do not open with another key, altered in any byte, or at another length', () => {
    const d = encodeProbeRequest(key, nonce, NOW, fakeHmac);
    expect(openProbeRequest(d, otherKey, fakeHmac)).toBeUndefined();
    for (let i = 0; i < d.length; i++) {
      const bad = Uint8Array.from(d);
      bad[i]! ^= 0x01;
      expect(openProbeRequest(bad, key, fakeHmac), `byte ${i}`).toBeUndefined();
    }
    expect(openProbeRequest(d.subarray(0, 39), key, fakeHmac)).toBeUndefined();
    expect(openProbeRequest(new Uint8Array([...d, 0]), key, fakeHmac)).toBeUndefined();
    expect(openProbeRequest(new Uint8Array(0), key, fakeHmac)).toBeUndefined();
  });

  it('are never taken for replies, nor replies for requests', () => {
    const reply = encodeProbeReply(key, nonce, fakeHmac);
    expect(reply.length).toBe(PROBE_REPLY_BYTES);
    // Same length, to be sure the labels (not only the lengths) keep them apart.
    const padded = new Uint8Array(PROBE_REQUEST_BYTES);
    padded.set(reply);
    expect(openProbeRequest(padded, key, fakeHmac)).toBeUndefined();
    const request = encodeProbeRequest(key, nonce, NOW, fakeHmac);
    expect(openProbeReply(request.subarray(0, PROBE_REPLY_BYTES), key, fakeHmac)).toBeUndefined();
  });

  it('refuse keys and nonces of the wrong size', () => {
    expect(() => encodeProbeRequest(key.subarray(1), nonce, NOW, fakeHmac)).toThrow(RangeError);
    expect(() => encodeProbeRequest(key, nonce.subarray(1), NOW, fakeHmac)).toThrow(RangeError);
    expect(() => encodeProbeRequest(key, nonce, -1, fakeHmac)).toThrow(RangeError);
    expect(
      openProbeRequest(encodeProbeRequest(key, nonce, NOW, fakeHmac), key.subarray(1), fakeHmac),
    ).toBeUndefined();
  });
});

describe('probe replies', () => {
  it('carry the nonce they answer, and open only with the key', () => {
    const r = encodeProbeReply(key, nonce, fakeHmac);
    expect([...openProbeReply(r, key, fakeHmac)!]).toEqual([...nonce]);
    expect(openProbeReply(r, otherKey, fakeHmac)).toBeUndefined();
    const bad = Uint8Array.from(r);
    bad[3]! ^= 0x80;
    expect(openProbeReply(bad, key, fakeHmac)).toBeUndefined();
  });
});

describe('freshness', () => {
  it('accepts timestamps within the window either way, and nothing beyond', () => {
    expect(isFreshProbe(NOW, NOW)).toBe(true);
    expect(isFreshProbe(NOW - PROBE_FRESHNESS_MS, NOW)).toBe(true);
    expect(isFreshProbe(NOW + PROBE_FRESHNESS_MS, NOW)).toBe(true);
    expect(isFreshProbe(NOW - PROBE_FRESHNESS_MS - 1, NOW)).toBe(false);
    expect(isFreshProbe(NOW + PROBE_FRESHNESS_MS + 1, NOW)).toBe(false);
    expect(isFreshProbe(Number.POSITIVE_INFINITY, NOW)).toBe(false);
  });

  it('reads a timestamp beyond 2^53 ms as never fresh', () => {
    const d = encodeProbeRequest(key, nonce, NOW, fakeHmac);
    // Re-tag a request whose timestamp bytes are all ones.
    const ts = new Uint8Array(8).fill(0xff);
    const forged = new Uint8Array([...nonce, ...ts, ...d.subarray(24)]);
    // The tag no longer matches: build it the way a sender would instead.
    const label = new TextEncoder().encode('ferry-probe-v1 request');
    const tag = fakeHmac(key, new Uint8Array([...label, ...nonce, ...ts])).subarray(0, 16);
    forged.set(tag, 24);
    const opened = openProbeRequest(forged, key, fakeHmac);
    expect(opened?.timestampMs).toBe(Number.POSITIVE_INFINITY);
    expect(isFreshProbe(opened!.timestampMs, NOW)).toBe(false);
  });
});

describe('equalTags', () => {
  it('compares contents and lengths', () => {
    expect(equalTags(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(equalTags(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(equalTags(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });
});
