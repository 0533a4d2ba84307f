// Service tunnels' keys: a pair of each kind per tag, saved 0600 before anyone sees them, the
// same after a restart, erased with their tunnel; a damaged, exposed or unreadable file reported
// with the fix and left alone, and a failed save keeping the keys as they were.
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FakeDataPlane } from '../native/tunnel.fake.js';
import { refusal } from './testing/refusal.js';
import { TUNNEL_KEYS_FILE, TunnelKeyStore } from './tunnel-keys.js';
import { wireguardPublicKey } from './wireguard-keys.js';

const ferryKeys = new FakeDataPlane();
let root: string;
let dir: string;
const storeAt = (d: string) => new TunnelKeyStore({ stateDir: d, ferryKeys });
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ferry-tunnel-keys-'));
  dir = path.join(root, 'state');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('the tunnel key store', () => {
  it('makes a tag’s pairs on first use, saved 0600, and gives the same after a restart', async () => {
    const store = storeAt(dir);
    expect(store.file).toBe(path.join(dir, TUNNEL_KEYS_FILE));
    const work = await store.keysFor('work');
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(work.publicKeys.wireguard).toBe(wireguardPublicKey(work.privateKey('wireguard')));
    expect(work.publicKeys.ferry).toBe(ferryKeys.publicKey(work.privateKey('ferry')));
    const lab = await store.keysFor('lab');
    expect(lab.publicKeys.wireguard).not.toBe(work.publicKeys.wireguard);

    const again = storeAt(dir);
    expect(await again.tags()).toEqual(['lab', 'work']);
    expect((await again.keysFor('work')).publicKeys).toEqual(work.publicKeys);
    expect(inspect(again, { depth: 10, showHidden: true })).not.toContain(
      work.privateKey('wireguard'),
    );
  });

  it('erases a tag’s keys, and every tag’s', async () => {
    const store = storeAt(dir);
    const work = await store.keysFor('work');
    await store.keysFor('lab');
    await store.forget('work');
    expect(await storeAt(dir).tags()).toEqual(['lab']);
    expect(await readFile(store.file, 'utf8')).not.toContain(work.privateKey('wireguard'));
    await store.forgetAll();
    expect(await storeAt(dir).tags()).toEqual([]);
  });

  it('says what is wrong with the file and what to do, and leaves it as it is', async () => {
    await storeAt(dir).keysFor('work');
    const file = path.join(dir, TUNNEL_KEYS_FILE);

    await writeFile(file, '{"version":1,"tunnels":{"work":{}}}', { mode: 0o600 });
    const corrupt = await refusal(storeAt(dir).keysFor('work'));
    expect([corrupt.code, corrupt.message]).toEqual([
      'keys-corrupt',
      `the tunnel key file ${file} is damaged and was left as it is; moving it aside makes new ` +
        'keys for the service tunnels',
    ]);
    expect(await readFile(file, 'utf8')).toBe('{"version":1,"tunnels":{"work":{}}}');

    await chmod(file, 0o644);
    const insecure = await refusal(storeAt(dir).tags());
    expect([insecure.code, insecure.message]).toEqual([
      'keys-insecure',
      `the tunnel key file ${file} is open to other users (mode 0644): run chmod 600 ${file}, ` +
        'and stop and start the service tunnels for new keys',
    ]);

    await rm(file);
    await mkdir(file, { mode: 0o700 });
    const unreadable = await refusal(storeAt(dir).tags());
    expect([unreadable.code, unreadable.message]).toEqual([
      'keys-unreadable',
      `cannot read the tunnel key file ${file} (EISDIR)`,
    ]);
  });

  it('keeps the keys as they were when saving fails', async () => {
    const store = storeAt(dir);
    await store.keysFor('work');
    // A directory with something in it where the file goes: the rename over it fails.
    await rm(store.file);
    await mkdir(path.join(store.file, 'in-the-way'), { recursive: true });
    const e = await refusal(store.keysFor('lab'));
    expect([e.code, e.message]).toEqual([
      'keys-write-failed',
      `cannot save the tunnel keys in ${dir} (EISDIR); the previous keys are unchanged`,
    ]);
    expect(await store.tags()).toEqual(['work']);
  });
});
