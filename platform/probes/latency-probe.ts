// The authenticated latency probe (docs/latency-probes.md): its datagrams, built and checked
// with a node's probe key, for the relay's responder and the engine's prober. Pure: the
// HMAC-SHA256 comes from the caller (node:crypto in both), so that tests can stand one in.

/** A node's probe key: 32 random bytes, handed to its relay and to signed-in devices. */
export const PROBE_KEY_BYTES = 32;
export const PROBE_NONCE_BYTES = 16;
/** HMAC-SHA256 truncated to 128 bits: forging one is a 2^-128 guess per datagram. */
export const PROBE_TAG_BYTES = 16;
const TIMESTAMP_BYTES = 8;
/** nonce ‖ timestamp ‖ tag */
export const PROBE_REQUEST_BYTES = PROBE_NONCE_BYTES + TIMESTAMP_BYTES + PROBE_TAG_BYTES;
/** nonce ‖ tag: never larger than a request, so a responder amplifies nothing. */
export const PROBE_REPLY_BYTES = PROBE_NONCE_BYTES + PROBE_TAG_BYTES;
/** A request whose timestamp is further than this from the responder's clock is dropped. */
export const PROBE_FRESHNESS_MS = 30_000;

/**
 * HMAC-SHA256(key, message), all 32 bytes. Callers pass node:crypto's
 * `(k, m) => createHmac('sha256', k).update(m).digest()`.
 */
export type HmacSha256 = (key: Uint8Array, message: Uint8Array) => Uint8Array;

// Domain separation: a reply can never pass as a request, nor the other way round, and no
// other use of the key can produce either.
const REQUEST_LABEL = new TextEncoder().encode('ferry-probe-v1 request');
const REPLY_LABEL = new TextEncoder().encode('ferry-probe-v1 reply');

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function tag(hmac: HmacSha256, key: Uint8Array, message: Uint8Array): Uint8Array {
  const full = hmac(key, message);
  if (full.length < PROBE_TAG_BYTES) throw new Error('the HMAC gave fewer than 16 bytes');
  return full.subarray(0, PROBE_TAG_BYTES);
}

/** Compares in time that depends on the length only, not on where the first difference is. */
export function equalTags(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function checkKey(key: Uint8Array): void {
  if (key.length !== PROBE_KEY_BYTES) throw new RangeError('a probe key has 32 bytes');
}

function timestampBytes(ms: number): Uint8Array {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('a timestamp in whole ms >= 0');
  const b = new Uint8Array(TIMESTAMP_BYTES);
  new DataView(b.buffer).setBigUint64(0, BigInt(ms));
  return b;
}

/** A probe request: `nonce` (16 random bytes, new for every probe) and the sender's clock. */
export function encodeProbeRequest(
  key: Uint8Array,
  nonce: Uint8Array,
  timestampMs: number,
  hmac: HmacSha256,
): Uint8Array {
  checkKey(key);
  if (nonce.length !== PROBE_NONCE_BYTES) throw new RangeError('a probe nonce has 16 bytes');
  const ts = timestampBytes(timestampMs);
  return concat(nonce, ts, tag(hmac, key, concat(REQUEST_LABEL, nonce, ts)));
}

export interface ProbeRequest {
  nonce: Uint8Array;
  timestampMs: number;
}

/**
 * The request in `datagram` if it is one made with `key`; undefined for anything else (wrong
 * length, wrong key, altered). Freshness and replays are the responder's to check.
 */
export function openProbeRequest(
  datagram: Uint8Array,
  key: Uint8Array,
  hmac: HmacSha256,
): ProbeRequest | undefined {
  if (datagram.length !== PROBE_REQUEST_BYTES || key.length !== PROBE_KEY_BYTES) return undefined;
  const nonce = datagram.subarray(0, PROBE_NONCE_BYTES);
  const ts = datagram.subarray(PROBE_NONCE_BYTES, PROBE_NONCE_BYTES + TIMESTAMP_BYTES);
  const got = datagram.subarray(PROBE_NONCE_BYTES + TIMESTAMP_BYTES);
  if (!equalTags(got, tag(hmac, key, concat(REQUEST_LABEL, nonce, ts)))) return undefined;
  const big = new DataView(ts.buffer, ts.byteOffset, TIMESTAMP_BYTES).getBigUint64(0);
  // Beyond 2^53 ms no clock is right: treated as not fresh rather than rounded.
  const timestampMs =
    big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(big);
  return { nonce: Uint8Array.from(nonce), timestampMs };
}

/** Whether a request's timestamp is within `windowMs` of the responder's clock, either way. */
export function isFreshProbe(
  timestampMs: number,
  nowMs: number,
  windowMs = PROBE_FRESHNESS_MS,
): boolean {
  return Number.isFinite(timestampMs) && Math.abs(nowMs - timestampMs) <= windowMs;
}

export function encodeProbeReply(key: Uint8Array, nonce: Uint8Array, hmac: HmacSha256): Uint8Array {
  checkKey(key);
  if (nonce.length !== PROBE_NONCE_BYTES) throw new RangeError('a probe nonce has 16 bytes');
  return concat(nonce, tag(hmac, key, concat(REPLY_LABEL, nonce)));
}

/** The nonce a reply answers, if `datagram` is a reply made with `key`; else undefined. */
export function openProbeReply(
  datagram: Uint8Array,
  key: Uint8Array,
  hmac: HmacSha256,
): Uint8Array | undefined {
  if (datagram.length !== PROBE_REPLY_BYTES || key.length !== PROBE_KEY_BYTES) return undefined;
  const nonce = datagram.subarray(0, PROBE_NONCE_BYTES);
  const got = datagram.subarray(PROBE_NONCE_BYTES);
  if (!equalTags(got, tag(hmac, key, concat(REPLY_LABEL, nonce)))) return undefined;
  return Uint8Array.from(nonce);
}
