// The sign-in: kept 0600, the token never shown, a damaged or exposed file reported and left
// alone, sign-out removing it.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Device } from '../contracts/index.js';
import { refusal } from './testing/refusal.js';
import { SessionStore } from './session-store.js';

const TOKEN = 'tok_0123456789abcdef0123456789abcdef';
const DEVICE: Device = {
  id: 'dev_1',
  name: 'laptop',
  kind: 'laptop',
  wireguard_public_key: 'w'.repeat(43) + '=',
  ferry_public_key: 'f'.repeat(43) + '=',
  tunnel_ipv4: '10.64.0.2',
  tunnel_ipv6: 'fd00::2',
  current: true,
};

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-session-'));
  dir = path.join(root, 'state');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function code(p: Promise<unknown>): Promise<string> {
  return (await refusal(p)).code;
}

describe('SessionStore', () => {
  it('is signed out with no file, and keeps a sign-in 0600 across restarts', async () => {
    const store = new SessionStore(dir);
    expect(await store.info()).toBeNull();
    expect(await store.token()).toBeUndefined();
    await store.save('1234567890123456', TOKEN, DEVICE);
    expect((statSync(store.file).mode & 0o777).toString(8)).toBe('600');
    const again = new SessionStore(dir);
    expect(await again.info()).toEqual({ accountNumber: '1234567890123456', device: DEVICE });
    expect(await again.token()).toBe(TOKEN);
  });

  it('never shows the token', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    expect(inspect(store, { depth: 5 })).not.toContain(TOKEN);
    expect(JSON.stringify(store)).not.toContain(TOKEN);
    expect(JSON.stringify(await store.info())).not.toContain(TOKEN);
  });

  it('clears the sign-in, file and all', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    await store.clear();
    expect(await store.info()).toBeNull();
    expect(await new SessionStore(dir).info()).toBeNull();
    await store.clear();
  });

  it('reports a damaged file and leaves it as it is', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    writeFileSync(store.file, '{"version":1,"token":', { mode: 0o600 });
    const fresh = new SessionStore(dir);
    expect(await code(fresh.info())).toBe('session-corrupt');
    expect(readFileSync(store.file, 'utf8')).toBe('{"version":1,"token":');
    // Signing out is the way out of it.
    await fresh.clear();
    expect(await fresh.info()).toBeNull();
  });

  it('refuses a file other users can read, without quoting it', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    chmodSync(store.file, 0o644);
    const fresh = new SessionStore(dir);
    const e = await refusal(fresh.info());
    expect(e.code).toBe('session-insecure');
    expect(e.message).not.toContain(TOKEN);
  });

  it('updates the device record of the current device only', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    await store.updateDevice({ ...DEVICE, name: 'renamed' });
    await store.updateDevice({ ...DEVICE, id: 'dev_2', name: 'other' });
    expect((await new SessionStore(dir).info())?.device.name).toBe('renamed');
    expect(await new SessionStore(dir).token()).toBe(TOKEN);
  });

  it('says what is wrong with the file and what to do, in so many words', async () => {
    const store = new SessionStore(dir);
    await store.save('1234567890123456', TOKEN, DEVICE);
    const file = store.file;

    writeFileSync(file, '{}', { mode: 0o600 });
    const corrupt = await refusal(new SessionStore(dir).info());
    expect([corrupt.code, corrupt.message]).toEqual([
      'session-corrupt',
      `the sign-in file ${file} is damaged and was left as it is; netcli logout removes it ` +
        '(then sign in again)',
    ]);

    chmodSync(file, 0o640);
    const insecure = await refusal(new SessionStore(dir).token());
    expect([insecure.code, insecure.message]).toEqual([
      'session-insecure',
      `the sign-in file ${file} is open to other users: run chmod 600 ${file}, and consider its ` +
        'token exposed (netcli logout, then sign in again)',
    ]);

    rmSync(file);
    await mkdir(file, { mode: 0o700 });
    const unreadable = await refusal(new SessionStore(dir).info());
    expect([unreadable.code, unreadable.message]).toEqual([
      'session-unreadable',
      `cannot read the sign-in file ${file} (EISDIR)`,
    ]);
  });

  it('keeps the old sign-in when saving fails', async () => {
    const store = new SessionStore(dir, () => Promise.reject(new Error('disk full')));
    const e = await refusal(store.save('1234567890123456', TOKEN, DEVICE));
    expect([e.code, e.message]).toEqual([
      'session-write-failed',
      `cannot save the sign-in in ${dir} (error)`,
    ]);
    expect(await store.info()).toBeNull();
  });
});
