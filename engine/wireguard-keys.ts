// WireGuard key pairs from Node's X25519, in WireGuard's own form (base64 of 32 bytes, the
// private key clamped as `wg genkey` prints it).
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';

// DER prefixes of X25519 keys in PKCS#8 / SPKI: the raw 32 bytes follow.
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_LENGTH = 44;

/** The 32 bytes of a base64 key, or null when `key` is not exactly that. */
export function rawKey(key: string): Buffer | null {
  const raw = Buffer.from(key, 'base64');
  return raw.length === 32 && raw.toString('base64') === key ? raw : null;
}

/** A new private key, clamped (RFC 7748) like `wg genkey`'s. */
export function generateWireguardPrivateKey(): string {
  const raw = randomBytes(32);
  raw[0]! &= 248;
  raw[31]! &= 127;
  raw[31]! |= 64;
  return raw.toString('base64');
}

/** The public key of a private key (`wg pubkey`). Throws RangeError on a malformed key. */
export function wireguardPublicKey(privateKey: string): string {
  const raw = rawKey(privateKey);
  if (!raw) throw new RangeError('a WireGuard private key is 32 bytes in base64');
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_X25519, raw]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (spki.length !== SPKI_X25519_LENGTH) throw new Error('unexpected X25519 public key encoding');
  return spki.subarray(spki.length - 32).toString('base64');
}
