// The relay lists a client knows (shipped, given to the daemon, the service's last good one kept
// in the state dir) and which one it uses: the key they are checked with, the newest that
// verifies, a refused list told without losing the last good one, and the kept file.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import type { RelayFacts, RelayListContent, SignedRelayList } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { readRelayListFile, RelayLists, type ShippedRelayList } from './relay-lists.js';
import { keyPair, signedBy } from '../catalog/testing/signed-relay-list.js';

const NOW = Date.parse('2026-11-28T04:00:00Z');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ferry-relay-lists-'));
  dirs.push(d);
  return d;
}
const stateDir = () => path.join(tempDir(), 'state');

const service = keyPair();
const stranger = keyPair();

function relay(id: string): RelayFacts {
  return {
    id,
    region: 'asia-east',
    endpoint_host: '198.18.5.11',
    wireguard_port: 51820,
    wireguard_public_key: `wg-${id}`,
    ferry_port: 51900,
    ferry_public_key: `fy-${id}`,
    tls_port: 443,
    tls_server_name: 'cover.example',
  };
}

/** A list issued on `day` of November 2026 with one relay named after it, a week to live. */
function issued(day: number, expiresAt?: string): RelayListContent {
  const dd = String(day).padStart(2, '0');
  return {
    version: 1,
    issued_at: `2026-11-${dd}T00:00:00.000Z`,
    expires_at: expiresAt ?? `2026-12-${dd}T00:00:00.000Z`,
    relays: [relay(`node_${dd}`)],
  };
}
const ids = (relays: RelayFacts[]) => relays.map((r) => r.id);

/** The service's key and a list of the 20th shipped; nothing given to the daemon. */
function lists(
  o: {
    dir?: string;
    shipped?: Partial<ShippedRelayList>;
    given?: { list?: SignedRelayList; key?: string };
    now?: () => number;
  } = {},
): RelayLists {
  return new RelayLists({
    stateDir: o.dir ?? stateDir(),
    shipped: {
      service_key: service.publicKey,
      relay_list: signedBy(service, issued(20)),
      ...o.shipped,
    },
    ...(o.given ? { given: o.given } : {}),
    now: o.now ?? (() => NOW),
  });
}

const noKey = { service_key: null };

describe('the key lists are checked with', () => {
  it('is the daemon’s, else the configuration’s, else the shipped one', () => {
    const daemon = keyPair().publicKey;
    const config = keyPair().publicKey;
    expect(lists({ given: { key: daemon } }).key({ service_key: config })).toEqual({
      key: daemon,
      from: 'daemon',
    });
    expect(lists().key({ service_key: config })).toEqual({ key: config, from: 'config' });
    expect(lists().key(noKey)).toEqual({ key: service.publicKey, from: 'shipped' });
    expect(lists({ shipped: { service_key: null } }).key(noKey)).toBeNull();
    // A shipped key that is not one is no key.
    expect(lists({ shipped: { service_key: 'not a key' } }).key(noKey)).toBeNull();
  });

  it('refuses a daemon’s key that is not one, saying what one is', () => {
    let e: unknown;
    try {
      lists({ given: { key: 'c2hvcnQ=' } });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(FerryError);
    expect(e).toMatchObject({ code: 'config-invalid', message: expect.stringMatching(/32 bytes/) });
  });
});

describe('the list in use', () => {
  it('is the newest that verifies, wherever it comes from', async () => {
    const dir = stateDir();
    const given = { list: signedBy(service, issued(22)) };
    const l = lists({ dir, given });
    expect(ids(await l.relays(noKey))).toEqual(['node_22']);
    expect(l.state).toEqual({
      relays: 1,
      source: 'given',
      issued_at: '2026-11-22T00:00:00.000Z',
      expires_at: '2026-12-22T00:00:00.000Z',
      refused: null,
      key_from: 'shipped',
    });
    expect(await l.offer(signedBy(service, issued(25)), noKey)).toEqual({ ok: true });
    expect(ids(await l.relays(noKey))).toEqual(['node_25']);
    expect(l.state).toMatchObject({ source: 'service', key_from: 'shipped' });
    // The shipped list is older than the one given: the given one, without the service's.
    expect(
      ids(await lists({ given: { list: signedBy(service, issued(18)) } }).relays(noKey)),
    ).toEqual(['node_20']);
  });

  it('passes over a newer list that does not verify, saying why, and uses the last good one', async () => {
    const changed = signedBy(service, issued(23));
    const other = JSON.stringify(issued(24));
    const cases: { list: unknown; why: string }[] = [
      { list: signedBy(service, issued(22, '2026-11-28T03:59:59.000Z')), why: 'expired' },
      {
        list: { ...changed, list: Buffer.from(other).toString('base64') },
        why: 'bad-signature',
      },
      { list: signedBy(stranger, issued(25)), why: 'unknown-key' },
      { list: signedBy(service, { version: 1, relays: 'none' }), why: 'malformed' },
    ];
    for (const c of cases) {
      const l = lists({ given: { list: c.list as SignedRelayList } });
      expect(ids(await l.relays(noKey)), c.why).toEqual(['node_20']);
      expect(l.state, c.why).toMatchObject({
        relays: 1,
        source: 'shipped',
        refused: { source: 'given', why: c.why, message: expect.any(String) },
      });
      expect(l.state.refused?.message).not.toMatch(/198\.18/);
    }
  });

  it('is none without a key, whatever lists there are', async () => {
    const l = lists({
      shipped: { service_key: null },
      given: { list: signedBy(service, issued(22)) },
    });
    expect(await l.relays(noKey)).toEqual([]);
    expect(l.state).toEqual({
      relays: 0,
      source: null,
      issued_at: null,
      expires_at: null,
      refused: null,
      key_from: null,
    });
    expect(await l.offer(signedBy(service, issued(25)), noKey)).toEqual({
      ok: false,
      why: 'no-key',
      message: 'no service key is known to check the relay list with',
    });
    // The configuration's key makes them usable.
    expect(ids(await l.relays({ service_key: service.publicKey }))).toEqual(['node_22']);
    expect(l.state.key_from).toBe('config');
  });

  it('is none when the only list has expired, and the state says so', async () => {
    const l = lists({ now: () => Date.parse('2026-12-21T00:00:00Z') });
    expect(await l.relays(noKey)).toEqual([]);
    expect(l.state).toMatchObject({
      relays: 0,
      source: null,
      refused: {
        source: 'shipped',
        why: 'expired',
        message: 'the relay list expired on 2026-12-20: a newer one comes from the service',
      },
      key_from: 'shipped',
    });
  });
});

describe('a list the service gives', () => {
  const saved = (dir: string) => path.join(dir, 'relay-list.json');

  it('is kept when newer and valid, 0600, and a new RelayLists on the state dir uses it', async () => {
    const dir = stateDir();
    const body = signedBy(service, issued(25));
    expect(await lists({ dir }).offer(body, noKey)).toEqual({ ok: true });
    expect(statSync(saved(dir)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(saved(dir), 'utf8'))).toEqual(body);
    const again = lists({ dir });
    expect(ids(await again.relays(noKey))).toEqual(['node_25']);
    expect(again.state).toMatchObject({ source: 'service', refused: null });
  });

  it('is kept out when older than the one kept', async () => {
    const dir = stateDir();
    const l = lists({ dir });
    await l.offer(signedBy(service, issued(25)), noKey);
    const before = readFileSync(saved(dir), 'utf8');
    expect(await l.offer(signedBy(service, issued(23)), noKey)).toEqual({ ok: true });
    expect(readFileSync(saved(dir), 'utf8')).toBe(before);
    expect(ids(await l.relays(noKey))).toEqual(['node_25']);
    expect(ids(await lists({ dir }).relays(noKey))).toEqual(['node_25']);
  });

  it('is refused when it does not verify, the kept one untouched and still in use', async () => {
    const dir = stateDir();
    const l = lists({ dir });
    await l.offer(signedBy(service, issued(25)), noKey);
    const before = readFileSync(saved(dir), 'utf8');
    const bad: { body: unknown; why: string }[] = [
      { body: signedBy(service, issued(26, '2026-11-27T00:00:00.000Z')), why: 'expired' },
      {
        body: { ...signedBy(stranger, issued(26)), public_key: service.publicKey },
        why: 'bad-signature',
      },
      { body: signedBy(stranger, issued(26)), why: 'unknown-key' },
      { body: { list: 'not base64!' }, why: 'malformed' },
    ];
    for (const b of bad) {
      expect(await l.offer(b.body, noKey), b.why).toMatchObject({ ok: false, why: b.why });
      expect(l.state.refused, b.why).toMatchObject({ source: 'service', why: b.why });
      expect(readFileSync(saved(dir), 'utf8')).toBe(before);
      expect(ids(await l.relays(noKey))).toEqual(['node_25']);
    }
  });

  it('stays told as refused once the lists are read again, the last good one in use', async () => {
    const l = lists();
    await l.offer(signedBy(service, issued(25)), noKey);
    await l.offer(signedBy(stranger, issued(26)), noKey);
    expect(l.state.refused).toMatchObject({ source: 'service', why: 'unknown-key' });
    // What `api-access list` and a route through relays do before the status is read.
    expect(ids(await l.relays(noKey))).toEqual(['node_25']);
    expect(l.state).toMatchObject({
      source: 'service',
      refused: { source: 'service', why: 'unknown-key' },
    });
  });

  it('kept in a damaged file is no list: the others are still used', async () => {
    const dir = stateDir();
    await lists({ dir }).offer(signedBy(service, issued(25)), noKey);
    writeFileSync(saved(dir), '{"list": 1}', { mode: 0o600 });
    const l = lists({ dir });
    expect(ids(await l.relays(noKey))).toEqual(['node_20']);
    expect(l.state.source).toBe('shipped');
  });
});

describe('readRelayListFile', () => {
  it('reads a body of GET /relay-list saved as it came', () => {
    const file = path.join(tempDir(), 'relays.json');
    const body = signedBy(service, issued(22));
    writeFileSync(file, JSON.stringify(body));
    expect(readRelayListFile(file)).toEqual(body);
  });

  it('names the file it cannot read or that is no list, never quoting what is in it', () => {
    const dir = tempDir();
    const refusal = (file: string): FerryError => {
      try {
        readRelayListFile(file);
      } catch (e) {
        if (e instanceof FerryError) return e;
        throw e;
      }
      throw new Error('expected a refusal');
    };
    const missing = path.join(dir, 'missing.json');
    expect(refusal(missing)).toMatchObject({
      code: 'config-invalid',
      message: expect.stringContaining(`cannot read the relay list ${missing}`),
    });
    const secret = 'hunter2-account-1234567890123456';
    for (const [name, text] of [
      ['not-json.json', `${secret} is not JSON`],
      ['not-a-list.json', JSON.stringify({ account: secret })],
      ['partial.json', JSON.stringify({ list: secret, signature: '!' })],
    ]) {
      const file = path.join(dir, name!);
      writeFileSync(file, text!);
      const e = refusal(file);
      expect(e.code).toBe('config-invalid');
      expect(e.message).toBe(
        `the relay list ${file} is not a signed relay list (save the body of GET /relay-list as it comes)`,
      );
      expect(e.message).not.toContain('hunter2');
    }
  });
});
