// Account numbers, opaque tokens and ids: random, and tokens kept only as hashes.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** 16 random digits (about 53 bits), the whole account identifier as in Mullvad. */
export function newAccountNumber(): string {
  let out = String(randomInt(1, 10));
  for (let i = 1; i < 16; i++) out += String(randomInt(0, 10));
  return out;
}

/** An opaque bearer token: a kind prefix and 256 random bits. */
export function newToken(kind: 'device' | 'node'): string {
  return `ferry_${kind === 'device' ? 'd' : 'n'}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of a presented secret with the expected one. */
export function secretEquals(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A node's latency probe key: 32 random bytes, base64 (docs/latency-probes.md). */
export function newProbeKey(): string {
  return randomBytes(32).toString('base64');
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}
