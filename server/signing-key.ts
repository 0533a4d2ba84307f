// The service's Ed25519 signing key (the relay list's): given with --signing-key FILE (PEM,
// PKCS#8), or made at the first start and kept in the data dir (signing-key.pem, 0600). Every
// instance of one service must sign with the same key: give several instances the same file.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { ServiceSigner } from './domain/relay-list.js';

export const SIGNING_KEY_FILE = 'signing-key.pem';

function signer(key: KeyObject, source: string): ServiceSigner {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(
      `${source} is not an Ed25519 private key (it holds ${key.asymmetricKeyType ?? 'no key type'})`,
    );
  // The SPKI form of an Ed25519 key ends with its 32 raw bytes.
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const publicKey = spki.subarray(spki.length - 32).toString('base64');
  return { publicKey, sign: (data) => sign(null, data, key).toString('base64') };
}

async function readKey(file: string): Promise<ServiceSigner> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read the signing key ${file}: ${(e as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error(`${file} holds no private key in PEM`);
  }
  return signer(key, file);
}

/** The key of --signing-key FILE, or the data dir's (made there at the first start). */
export async function loadSigningKey(opts: {
  dataDir: string;
  file?: string;
}): Promise<ServiceSigner> {
  if (opts.file !== undefined) return readKey(opts.file);
  const file = path.join(opts.dataDir, SIGNING_KEY_FILE);
  const exists = await stat(file).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return false;
      throw e;
    },
  );
  if (exists) {
    // A key others can read is no longer the service's alone: made private again.
    await chmod(file, 0o600);
    return readKey(file);
  }
  await mkdir(opts.dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  try {
    // 'wx': another instance that made one meanwhile wins, and this one reads it.
    await writeFile(file, pem, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return readKey(file);
  }
  return signer(privateKey, file);
}
