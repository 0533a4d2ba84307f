// The signed relay list: every registered relay's public facts, signed by the service's own
// Ed25519 key, which verifies with the public key the service prints; valid for a week; the key
// made once per data dir and kept (0600), or the one given with --signing-key; a list changed
// after signing no longer verifies.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RelayListContent, SignedRelayList } from '../contracts/index.js';
import { loadSigningKey, SIGNING_KEY_FILE } from './signing-key.js';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

/** Whether `signed`'s signature verifies its list under a raw 32-byte Ed25519 key (base64). */
function verifies(signed: SignedRelayList, publicKey: string): boolean {
  // SPKI DER of an Ed25519 key: a fixed 12-byte prefix, then the 32 raw bytes.
  const spki = Buffer.concat([
    Buffer.from('302a300506032b6570032100', 'hex'),
    Buffer.from(publicKey, 'base64'),
  ]);
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  return verify(
    null,
    Buffer.from(signed.list, 'base64'),
    key,
    Buffer.from(signed.signature, 'base64'),
  );
}

describe.each(backends())('GET /relay-list on %s', (backend) => {
  let h: Harness;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-relay-list-'));
    h = await startControlPlane(backend, { dataDir });
  });
  afterAll(async () => h?.close());

  it('lists the registered relays, signed by the key the service prints, for a week, to anyone', async () => {
    const node = await h.addNode('eu-west');
    const keys = { wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() };
    await h.client(node.token).nodeRegister({
      body: { ...keys, tls_port: 443, tls_server_name: 'cover.test' },
    });
    const reply = await h.call('GET', '/relay-list', {});
    expect(reply.status).toBe(200);
    const signed = SignedRelayList.parse(reply.body);
    const printed = (await loadSigningKey({ dataDir })).publicKey;
    expect(signed.public_key).toBe(printed);
    expect(verifies(signed, printed)).toBe(true);
    const list = RelayListContent.parse(JSON.parse(Buffer.from(signed.list, 'base64').toString()));
    expect(list.relays).toContainEqual(
      expect.objectContaining({
        id: node.id,
        region: 'eu-west',
        wireguard_public_key: keys.wireguard_public_key,
        ferry_public_key: keys.ferry_public_key,
        tls_port: 443,
        tls_server_name: 'cover.test',
      }),
    );
    const days = (Date.parse(list.expires_at) - Date.parse(list.issued_at)) / 86_400_000;
    expect(days).toBe(7);
    // No load, health or user data: a relay's public facts only.
    expect(Object.keys(list.relays[0]!).sort()).toEqual(
      [
        'endpoint_host',
        'ferry_port',
        'ferry_public_key',
        'id',
        'region',
        'tls_port',
        'tls_server_name',
        'wireguard_port',
        'wireguard_public_key',
      ].sort(),
    );
  });

  it('a list changed after signing, or checked with another key, does not verify', async () => {
    const signed = SignedRelayList.parse((await h.call('GET', '/relay-list', {})).body);
    const bytes = Buffer.from(signed.list, 'base64');
    const changed = Buffer.from(bytes.toString().replace('"version":1', '"version":1 '));
    expect(verifies({ ...signed, list: changed.toString('base64') }, signed.public_key)).toBe(
      false,
    );
    expect(verifies(signed, newPublicKey())).toBe(false);
  });
});

describe('the signing key', () => {
  it('is made once per data dir (0600) and kept; --signing-key gives another; a key of another kind is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-signing-'));
    const first = await loadSigningKey({ dataDir: dir });
    expect(statSync(path.join(dir, SIGNING_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect((await loadSigningKey({ dataDir: dir })).publicKey).toBe(first.publicKey);

    const given = path.join(dir, 'given.pem');
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(given, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    const other = await loadSigningKey({ dataDir: dir, file: given });
    expect(other.publicKey).not.toBe(first.publicKey);

    const rsa = path.join(dir, 'rsa.pem');
    const { privateKey: rsaKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(rsa, rsaKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    await expect(loadSigningKey({ dataDir: dir, file: rsa })).rejects.toThrow(
      /is not an Ed25519 private key \(it holds rsa\)/,
    );
    await expect(
      loadSigningKey({ dataDir: dir, file: path.join(dir, 'none.pem') }),
    ).rejects.toThrow(/cannot read the signing key/);
  });
});
