// The contract's low-order key check against X25519 itself (node:crypto): the keys it refuses
// are exactly those with which no shared secret can be made.
import { createPublicKey, diffieHellman, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LOW_ORDER_PUBLIC_KEYS, PublicKey, isLowOrderPublicKey } from '../../contracts/index.js';

const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');
const { privateKey } = generateKeyPairSync('x25519');

/** Whether X25519 with `key` yields a secret: OpenSSL refuses an all-zero one (throws). */
function agrees(key: Buffer): boolean {
  const publicKey = createPublicKey({
    key: Buffer.concat([SPKI_X25519, key]),
    format: 'der',
    type: 'spki',
  });
  try {
    return diffieHellman({ privateKey, publicKey }).some((b) => b !== 0);
  } catch {
    return false;
  }
}

const P = 2n ** 255n - 19n;
function encode(u: bigint): Buffer {
  const b = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) b[i] = Number((u >> BigInt(8 * i)) & 0xffn);
  return b;
}

describe('low-order public keys', () => {
  it('are the fourteen well-known encodings, each refused by X25519 and by the schema', () => {
    expect(new Set(LOW_ORDER_PUBLIC_KEYS).size).toBe(14);
    expect(LOW_ORDER_PUBLIC_KEYS).toContain('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    expect(LOW_ORDER_PUBLIC_KEYS).toContain('4Ot6fDtBuK4WVuP68Z/EatoJjeucMrH9hmIFFl9JuAA=');
    expect(LOW_ORDER_PUBLIC_KEYS).toContain('X5yVvKNQjCSx0LFVnIPvWwREXMRYHI6G2CJO3dCfEVc=');
    expect(LOW_ORDER_PUBLIC_KEYS).toContain('7P///////////////////////////////////////38=');
    for (const key of LOW_ORDER_PUBLIC_KEYS) {
      expect(agrees(Buffer.from(key, 'base64')), key).toBe(false);
      expect(isLowOrderPublicKey(key), key).toBe(true);
      const parsed = PublicKey.safeParse(key);
      expect(parsed.success, key).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/low-order/);
    }
  });

  it('agree with X25519 near 0 and p, with and without the top bit, and on random keys', () => {
    const candidates: bigint[] = [];
    for (let u = 0n; u < 64n; u++) candidates.push(u, P - 32n + u);
    for (const u of [...candidates]) candidates.push(u | (1n << 255n));
    const keys = candidates.filter((u) => u < 2n ** 256n).map(encode);
    for (let i = 0; i < 500; i++) keys.push(randomBytes(32));
    for (const key of keys) {
      const b64 = key.toString('base64');
      expect(isLowOrderPublicKey(b64), b64).toBe(!agrees(key));
    }
  });
});
