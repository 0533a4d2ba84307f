// Test kit: a service's Ed25519 key pair and relay lists signed with it, as GET /relay-list
// serves them (the list's exact bytes in base64, their signature, the public key named).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

import type { SignedRelayList } from '../../../contracts/index.js';

export interface ServiceKeyPair {
  privateKey: KeyObject;
  /** base64 of the 32 raw bytes, as the service prints it. */
  publicKey: string;
}

export function keyPair(): ServiceKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: spki.subarray(spki.length - 32).toString('base64') };
}

/** `body` (JSON, or a string taken as the very bytes) signed with `k`, naming `k`'s public key. */
export function signedBy(k: ServiceKeyPair, body: unknown): SignedRelayList {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    list: bytes.toString('base64'),
    signature: sign(null, bytes, k.privateKey).toString('base64'),
    public_key: k.publicKey,
  };
}
