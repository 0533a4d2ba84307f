// Device keys: made here in the forms WireGuard and Ferry use, kept 0600 and stable across
// restarts, never shown, a damaged file never replaced, and rotation that keeps the old pair
// until the control plane confirms the new one.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { PublicKey } from '../contracts/index.js';
import { FakeDataPlane } from '../native/tunnel.fake.js';
import { refusal } from './testing/refusal.js';
import { KeyStore, rotateDeviceKeys, type DevicePublicKeys } from './key-store.js';
import { generateWireguardPrivateKey, wireguardPublicKey } from './wireguard-keys.js';

let root: string;
let dir: string;
const fake = new FakeDataPlane();
const storeAt = (d: string, writeFile?: ConstructorParameters<typeof KeyStore>[0]['writeFile']) =>
  new KeyStore({ stateDir: d, ferryKeys: fake, writeFile });
let store: KeyStore;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-keys-'));
  dir = path.join(root, 'state');
  store = storeAt(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fileText = () => readFileSync(store.file, 'utf8');

describe('WireGuard keys', () => {
  it('derive public keys as X25519 does (RFC 7748 test vector)', () => {
    const alice = Buffer.from(
      '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
      'hex',
    ).toString('base64');
    expect(Buffer.from(wireguardPublicKey(alice), 'base64').toString('hex')).toBe(
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    );
  });

  it('are clamped like wg genkey, and wg pubkey agrees on the public key', () => {
    const which = spawnSync('sh', ['-c', 'command -v wg']);
    expect(which.status, 'wg is missing (scripts/setup/system-packages.sh installs it)').toBe(0);
    for (let i = 0; i < 8; i++) {
      const key = generateWireguardPrivateKey();
      const raw = Buffer.from(key, 'base64');
      expect(raw).toHaveLength(32);
      expect(raw[0]! & 7).toBe(0);
      expect(raw[31]! & 0xc0).toBe(0x40);
      const wg = spawnSync('wg', ['pubkey'], { input: `${key}\n`, encoding: 'utf8' });
      expect(wg.stdout.trim()).toBe(wireguardPublicKey(key));
    }
  });

  it('refuse a malformed private key', () => {
    expect(() => wireguardPublicKey('abc')).toThrow(RangeError);
    expect(() => wireguardPublicKey(Buffer.alloc(31).toString('base64'))).toThrow(RangeError);
  });
});

describe('the key store', () => {
  it('makes both key pairs on first use and keeps them 0600 in a 0700 directory', async () => {
    const keys = await store.publicKeys();
    expect(PublicKey.safeParse(keys.wireguard).success).toBe(true);
    expect(PublicKey.safeParse(keys.ferry).success).toBe(true);
    expect(keys.wireguard).not.toBe(keys.ferry);
    expect(keys.wireguard).toBe(wireguardPublicKey(await store.privateKey('wireguard')));
    // The Ferry pair comes from the data plane's key code.
    expect(keys.ferry).toBe(fake.publicKey(await store.privateKey('ferry')));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.file).toBe(path.join(dir, 'keys.json'));
  });

  it('gives the same keys after a restart', async () => {
    const keys = await store.publicKeys();
    const again = storeAt(dir);
    expect(await again.publicKeys()).toEqual(keys);
    expect(await again.privateKey('ferry')).toBe(await store.privateKey('ferry'));
  });

  it('makes one pair of each even when asked many times at once', async () => {
    const all = await Promise.all([store.publicKeys(), store.publicKeys(), store.publicKeys()]);
    expect(new Set(all.map((k) => k.wireguard)).size).toBe(1);
  });

  it('never shows a private key', async () => {
    await store.publicKeys();
    const secrets = [await store.privateKey('wireguard'), await store.privateKey('ferry')];
    const shown = JSON.stringify(store) + inspect(store, { depth: 10, showHidden: true });
    for (const s of secrets) expect(shown).not.toContain(s);
  });

  it('reports a damaged key file without quoting it, and leaves it alone', async () => {
    const key = generateWireguardPrivateKey();
    for (const damaged of [
      `{"version":1,"wireguard":{"private_key":"${key}"}`,
      JSON.stringify({ version: 1, wireguard: { private_key: key } }),
      JSON.stringify({
        version: 1,
        wireguard: { private_key: key },
        ferry: { private_key: key.slice(0, 40) },
      }),
      JSON.stringify({ version: 2, wireguard: { private_key: key }, ferry: { private_key: key } }),
    ]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, 'keys.json'), damaged, { mode: 0o600 });
      const e = await refusal(storeAt(dir).publicKeys());
      expect(e.code).toBe('keys-corrupt');
      expect(e.message).toMatch(/is damaged and was left as it is/);
      expect(`${e.message} ${String(e.cause)}`).not.toContain(key.slice(0, 12));
      expect(fileText()).toBe(damaged);
    }
  });

  it('refuses a key file others can read', async () => {
    await store.publicKeys();
    chmodSync(store.file, 0o644);
    const e = await refusal(storeAt(dir).publicKeys());
    expect(e.code).toBe('keys-insecure');
    expect(e.message).toMatch(/mode 0644.*chmod 600/);
  });

  it('says what is wrong with the key file and what to do, in so many words', async () => {
    await store.publicKeys();
    const file = store.file;
    writeFileSync(file, '[]', { mode: 0o600 });
    const corrupt = await refusal(storeAt(dir).publicKeys());
    expect([corrupt.code, corrupt.message]).toEqual([
      'keys-corrupt',
      `the key file ${file} is damaged and was left as it is; moving it aside makes new ` +
        'device keys (this device then has to sign in again)',
    ]);

    chmodSync(file, 0o604);
    const insecure = await refusal(storeAt(dir).privateKey('wireguard'));
    expect([insecure.code, insecure.message]).toEqual([
      'keys-insecure',
      `the key file ${file} is open to other users (mode 0604): run chmod 600 ${file}, and ` +
        'consider the keys exposed (rotate them)',
    ]);

    rmSync(file);
    mkdirSync(file, { mode: 0o700 });
    const unreadable = await refusal(storeAt(dir).publicKeys());
    expect([unreadable.code, unreadable.message]).toEqual([
      'keys-unreadable',
      `cannot read the key file ${file} (EISDIR)`,
    ]);
  });

  it('refuses a state directory others can enter', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect((await refusal(store.publicKeys())).code).toBe('state-dir-insecure');
  });

  it('hands out no key it could not save', async () => {
    const failing = storeAt(dir, async () => {
      throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
    });
    const e = await refusal(failing.publicKeys());
    expect(e.code).toBe('keys-write-failed');
    expect(e.message).toBe(
      `cannot save the device keys in ${dir} (EROFS); the previous keys are unchanged`,
    );
    expect((await refusal(failing.privateKey('ferry'))).code).toBe('keys-write-failed');
  });
});

describe('key rotation', () => {
  it('keeps the old pair in use until the control plane confirms the new one', async () => {
    const old = await store.publicKeys();
    const oldPrivate = await store.privateKey('wireguard');
    const next = await store.beginRotation();
    expect(next.wireguard).not.toBe(old.wireguard);
    expect(next.ferry).not.toBe(old.ferry);
    expect(await store.publicKeys()).toEqual(old);
    expect(await store.privateKey('wireguard')).toBe(oldPrivate);
    expect(await store.pendingRotation()).toEqual(next);

    // A restart in between continues the same rotation.
    const restarted = storeAt(dir);
    expect(await restarted.pendingRotation()).toEqual(next);
    expect(await restarted.beginRotation()).toEqual(next);

    const now = await restarted.confirmRotation(next);
    expect(now).toEqual(next);
    expect(await restarted.publicKeys()).toEqual(next);
    expect(await restarted.pendingRotation()).toBeNull();
    expect(fileText()).not.toContain(oldPrivate);
    expect(await storeAt(dir).publicKeys()).toEqual(next);
    // Confirming again (a retry) changes nothing.
    expect(await restarted.confirmRotation(next)).toEqual(next);
  });

  it('refuses to confirm keys it is not rotating to', async () => {
    await store.publicKeys();
    const stranger = fake.publicKey(fake.generatePrivateKey());
    const e = await refusal(store.confirmRotation({ ferry: stranger }));
    expect(e.code).toBe('key-rotation-mismatch');
    await store.beginRotation(['ferry']);
    expect((await refusal(store.confirmRotation({ ferry: stranger }))).code).toBe(
      'key-rotation-mismatch',
    );
  });

  it('rotates one kind alone', async () => {
    const old = await store.publicKeys();
    const next = await store.beginRotation(['ferry']);
    expect(Object.keys(next)).toEqual(['ferry']);
    expect(await store.confirmRotation(next)).toEqual({
      wireguard: old.wireguard,
      ferry: next.ferry,
    });
  });

  it('drops an abandoned rotation and keeps the old pair', async () => {
    const old = await store.publicKeys();
    await store.beginRotation();
    await store.abandonRotation();
    expect(await store.pendingRotation()).toBeNull();
    expect(await storeAt(dir).publicKeys()).toEqual(old);
  });

  it('sends the same new keys again after a failed registration, then switches', async () => {
    const old = await store.publicKeys();
    const sent: Partial<DevicePublicKeys>[] = [];
    const down = async (k: Partial<DevicePublicKeys>) => {
      sent.push(k);
      throw new Error('control plane unreachable');
    };
    await expect(rotateDeviceKeys(store, down)).rejects.toThrow('control plane unreachable');
    expect(await store.publicKeys()).toEqual(old);
    const now = await rotateDeviceKeys(store, async (k) => void sent.push(k));
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(now).toEqual(sent[0]);
    expect(await store.publicKeys()).toEqual(sent[0]);
  });
});
