// The configuration file: defaults until something is set, private modes, refusals that leave
// the file alone, a damaged file reported (never reset), and no lost updates.
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { CLIENT_CONFIG_DEFAULTS } from '../contracts/index.js';
import { ConfigStore } from './config-store.js';
import { FerryError } from './errors.js';

let root: string;
let dir: string;
let store: ConfigStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-config-'));
  dir = path.join(root, 'state');
  store = new ConfigStore(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const onDisk = () => JSON.parse(readFileSync(store.file, 'utf8')) as Record<string, unknown>;

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

function plant(contents: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(store.file, contents, { mode: 0o600 });
}

describe('the config store', () => {
  it('keeps the file in the state dir, /var/lib/ferry by default', () => {
    expect(new ConfigStore().file).toBe('/var/lib/ferry/config.json');
    expect(store.file).toBe(path.join(dir, 'config.json'));
  });

  it('gives the defaults when there is no file, and writes nothing', async () => {
    expect(await store.load()).toEqual(CLIENT_CONFIG_DEFAULTS);
    expect(() => statSync(dir)).toThrow();
  });

  it('saves a set value in a 0600 file in a 0700 directory, and reads it back', async () => {
    const r = await store.set('protocol', 'Ferry');
    expect(r.changed).toEqual(['protocol']);
    expect(r.config.protocol).toBe('ferry');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(onDisk()).toEqual({ ...CLIENT_CONFIG_DEFAULTS, protocol: 'ferry' });
    expect(await new ConfigStore(dir).load()).toEqual({
      ...CLIENT_CONFIG_DEFAULTS,
      protocol: 'ferry',
    });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('reports a set that changes nothing', async () => {
    await store.set('encryption', 'aes-256-gcm');
    expect((await store.set('encryption', 'AES-256-GCM')).changed).toEqual([]);
  });

  it('refuses unknown keys and bad values with config-invalid, leaving the file alone', async () => {
    await store.set('dns', '9.9.9.9');
    const before = readFileSync(store.file, 'utf8');
    const unknown = await refusal(store.set('colour', 'red'));
    expect(unknown.code).toBe('config-invalid');
    expect(unknown.errors?.[0]?.allowed).toContain('kill_switch');
    const bad = await refusal(store.set('protocol', 'openvpn'));
    expect(bad.code).toBe('config-invalid');
    expect(bad.message).toBe('protocol must be one of: wireguard, ferry');
    expect(bad.errors).toEqual([
      { field: 'protocol', message: bad.message, allowed: ['wireguard', 'ferry'] },
    ]);
    expect(readFileSync(store.file, 'utf8')).toBe(before);
  });

  it('reports a file that is not JSON by position, without quoting it, and never replaces it', async () => {
    plant('{\n  "dns": "192.0.2.53",\n  "protocol": "ferry",\n}\n');
    expect((await refusal(store.load())).message).toBe(
      `the configuration file ${store.file} is not valid JSON (line 4, column 1); ` +
        'fix it or move it aside (it was left as it is)',
    );
    // Where the parser names no position, none is given; the file is never quoted.
    const damaged = '{\n  "dns": "192.0.2.53",\n  "protocol": wireguard\n}\n';
    plant(damaged);
    const e = await refusal(store.load());
    expect(e.code).toBe('config-corrupt');
    expect(e.message).toBe(
      `the configuration file ${store.file} is not valid JSON; ` +
        'fix it or move it aside (it was left as it is)',
    );
    expect(JSON.stringify({ m: e.message, c: String(e.cause) })).not.toContain('192.0.2');
    expect((await refusal(store.set('protocol', 'ferry'))).code).toBe('config-corrupt');
    expect((await refusal(store.patch({ ui: 'graphical' }))).code).toBe('config-corrupt');
    expect(readFileSync(store.file, 'utf8')).toBe(damaged);
  });

  it('reports a JSON value that is not an object', async () => {
    plant('[]');
    expect((await refusal(store.load())).message).toMatch(/does not hold a JSON object/);
  });

  it('reports bad settings in the file by key, and a set may fix them keeping the others', async () => {
    plant(JSON.stringify({ protocol: 'openvpn', region: 'asia-east', kill_switch: false, x: 1 }));
    const e = await refusal(store.load());
    expect(e.code).toBe('config-corrupt');
    expect(e.errors?.map((f) => f.field).sort()).toEqual(['protocol', 'x']);
    expect(e.message).toMatch(/has invalid settings: .*protocol must be one of: wireguard, ferry/);

    // Fixing one of two problems writes nothing.
    const still = await refusal(store.set('protocol', 'ferry'));
    expect(still.code).toBe('config-corrupt');
    expect(still.errors?.map((f) => f.field)).toEqual(['x']);
    expect(onDisk().protocol).toBe('openvpn');

    plant(JSON.stringify({ protocol: 'openvpn', region: 'asia-east', kill_switch: false }));
    const fixed = await store.set('protocol', 'ferry');
    expect(fixed.changed).toEqual(['protocol']);
    expect(await store.load()).toEqual({
      ...CLIENT_CONFIG_DEFAULTS,
      protocol: 'ferry',
      region: 'asia-east',
      kill_switch: false,
    });
  });

  it('reports an unreadable file as such', async () => {
    mkdirSync(store.file, { recursive: true });
    expect((await refusal(store.load())).code).toBe('config-unreadable');
  });

  it('surfaces a failed write and keeps the previous configuration', async () => {
    await store.set('region', 'global');
    const failing = new ConfigStore(dir, {
      writeFile: async () => {
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    });
    const e = await refusal(failing.set('region', 'asia-east'));
    expect(e.code).toBe('config-write-failed');
    expect(e.message).toBe(
      `cannot save the configuration in ${dir} (ENOSPC); the previous configuration is unchanged`,
    );
    expect(e.cause).toBeInstanceOf(Error);
    expect((await store.load()).region).toBe('global');
  });

  it('refuses to write into a directory others can enter', async () => {
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    expect((await refusal(store.set('ui', 'graphical'))).code).toBe('state-dir-insecure');
  });

  it('loses no update when changes arrive together', async () => {
    const results = await Promise.all([
      store.set('protocol', 'ferry'),
      store.set('dns', '1.1.1.1'),
      store.patch({ region: 'asia-east', allow_lan: true }),
      store.set('kill_switch', 'off'),
    ]);
    expect(results.map((r) => r.changed)).toEqual([
      ['protocol'],
      ['dns'],
      ['region', 'allow_lan'],
      ['kill_switch'],
    ]);
    expect(await store.load()).toEqual({
      ...CLIENT_CONFIG_DEFAULTS,
      protocol: 'ferry',
      dns: '1.1.1.1',
      region: 'asia-east',
      allow_lan: true,
      kill_switch: false,
    });
  });

  it('applies a patch whole or not at all', async () => {
    const bad = await refusal(store.patch({ protocol: 'ferry', dns: 'nope' }));
    expect(bad.code).toBe('config-invalid');
    expect(bad.errors?.map((e) => e.field)).toEqual(['dns']);
    expect(await store.load()).toEqual(CLIENT_CONFIG_DEFAULTS);
  });

  it('validates a whole configuration before saving it', async () => {
    const e = await refusal(store.save({ ...CLIENT_CONFIG_DEFAULTS, mode: 'fast' as never }));
    expect(e.code).toBe('config-invalid');
    expect(() => statSync(store.file)).toThrow();
    await store.save({ ...CLIENT_CONFIG_DEFAULTS, ui: 'graphical' });
    expect(onDisk().ui).toBe('graphical');
  });
});
