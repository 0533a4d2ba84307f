// The relay's static key pair: X25519 from Node's crypto, kept 0600 in the state dir.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface KeyPair {
  /** base64, 32 bytes, as `wg genkey` prints it */
  privateKey: string;
  publicKey: string;
}

// DER prefixes of X25519 keys in PKCS#8 / SPKI: the raw 32 bytes follow.
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');

export function generateKeyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  return fromPrivateKey(der.subarray(der.length - 32).toString('base64'));
}

export function fromPrivateKey(privateKeyB64: string): KeyPair {
  const raw = Buffer.from(privateKeyB64, 'base64');
  if (raw.length !== 32) throw new Error('a private key is 32 bytes of base64');
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_X25519, raw]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return {
    privateKey: privateKeyB64,
    publicKey: spki.subarray(spki.length - 32).toString('base64'),
  };
}

/** Loads `<dir>/<name>.key`, or creates it (temp file, then rename) when absent. */
export function loadOrCreateKey(stateDir: string, name: string): KeyPair {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, `${name}.key`);
  try {
    return fromPrivateKey(readFileSync(file, 'utf8').trim());
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const pair = generateKeyPair();
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${pair.privateKey}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return pair;
}

export function base64ToHex(key: string): string {
  return Buffer.from(key, 'base64').toString('hex');
}

export function hexToBase64(key: string): string {
  return Buffer.from(key, 'hex').toString('base64');
}
