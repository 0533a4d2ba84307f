// The relay list's refresh in the background, on a fake clock and a fake control client: when it
// is due, a minute after a failure, one at a time, and the service's key recorded on first
// contact only (when none is known and the list verifies with the key it presents).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import {
  CLIENT_CONFIG_DEFAULTS,
  type ClientConfig,
  type ControlClient,
  type RelayListContent,
  type SignedRelayList,
} from '../../contracts/index.js';
import { RelayListRefresh, REFRESH_EVERY_MS, RETRY_AFTER_MS } from './list-refresh.js';
import { RelayLists } from './relay-lists.js';
import { keyPair, signedBy } from '../catalog/testing/signed-relay-list.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function stateDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ferry-list-refresh-'));
  dirs.push(d);
  return path.join(d, 'state');
}

const service = keyPair();
const stranger = keyPair();

const content = (expiresAt = '2026-12-05T04:00:00.000Z'): RelayListContent => ({
  version: 1,
  issued_at: '2026-11-28T03:00:00.000Z',
  expires_at: expiresAt,
  relays: [
    {
      id: 'node_tokyo',
      region: 'asia-east',
      endpoint_host: '198.18.5.11',
      wireguard_port: 51820,
      wireguard_public_key: 'wg',
      ferry_port: 51900,
      ferry_public_key: 'fy',
      tls_port: 443,
      tls_server_name: 'cover.example',
    },
  ],
});

/** The service's GET /relay-list: each call answers what `answer` says then. */
class FakeService {
  calls = 0;
  answer: () => Promise<SignedRelayList> = async () => signedBy(service, content());
  readonly client = {
    relayList: () => {
      this.calls += 1;
      return this.answer();
    },
  } as unknown as ControlClient;
}

function setup(o: { shippedKey?: string | null; configKey?: string | null } = {}) {
  const clock = { now: Date.parse('2026-11-28T04:00:00Z') };
  const dir = stateDir();
  const lists = new RelayLists({
    stateDir: dir,
    shipped: { service_key: o.shippedKey ?? null, relay_list: null },
    now: () => clock.now,
  });
  const recorded: string[] = [];
  const refresh = new RelayListRefresh({
    lists,
    recordKey: async (key) => {
      recorded.push(key);
    },
    now: () => clock.now,
  });
  const config: ClientConfig = {
    ...CLIENT_CONFIG_DEFAULTS,
    service: 'https://control.test',
    service_key: o.configKey ?? null,
  };
  const svc = new FakeService();
  /** Starts a refresh if one is due, and waits for it. */
  const tick = async () => {
    refresh.maybe(svc.client, config);
    await refresh.settled();
  };
  const saved = () => existsSync(path.join(dir, 'relay-list.json'));
  return { clock, lists, refresh, recorded, config, svc, tick, saved };
}

describe('the relay list’s refresh', () => {
  it('fetches at once, then not again for ten minutes', async () => {
    const s = setup({ configKey: service.publicKey });
    await s.tick();
    expect(s.svc.calls).toBe(1);
    expect(s.saved()).toBe(true);
    expect(await s.lists.relays(s.config)).toHaveLength(1);
    s.clock.now += REFRESH_EVERY_MS - 1;
    await s.tick();
    expect(s.svc.calls).toBe(1);
    s.clock.now += 1;
    await s.tick();
    expect(s.svc.calls).toBe(2);
  });

  it('runs one fetch at a time', async () => {
    const s = setup({ configKey: service.publicKey });
    let answer!: (body: SignedRelayList) => void;
    s.svc.answer = () => new Promise((resolve) => (answer = resolve));
    s.refresh.maybe(s.svc.client, s.config);
    s.refresh.maybe(s.svc.client, s.config);
    expect(s.svc.calls).toBe(1);
    answer(signedBy(service, content()));
    await s.refresh.settled();
    expect(s.saved()).toBe(true);
  });

  it('tries again a minute after a failed fetch, never failing itself', async () => {
    const s = setup({ configKey: service.publicKey });
    s.svc.answer = async () => {
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    };
    await s.tick();
    expect(s.svc.calls).toBe(1);
    s.clock.now += RETRY_AFTER_MS - 1;
    await s.tick();
    expect(s.svc.calls).toBe(1);
    s.clock.now += 1;
    await s.tick();
    expect(s.svc.calls).toBe(2);
    expect(s.saved()).toBe(false);
  });

  it('tries again a minute after a refused list, not ten', async () => {
    const s = setup({ configKey: service.publicKey });
    s.svc.answer = async () => signedBy(service, content('2026-11-28T03:59:59.000Z'));
    await s.tick();
    expect(s.lists.state.refused).toMatchObject({ source: 'service', why: 'expired' });
    s.clock.now += RETRY_AFTER_MS;
    await s.tick();
    expect(s.svc.calls).toBe(2);
  });
});

describe('the service’s key on first contact', () => {
  it('is recorded when none is known and the list verifies with it, and the list kept', async () => {
    const s = setup();
    expect(s.lists.key(s.config)).toBeNull();
    await s.tick();
    expect(s.recorded).toEqual([service.publicKey]);
    expect(s.saved()).toBe(true);
    // With the key recorded in the configuration, the kept list is used.
    const withKey = { ...s.config, service_key: service.publicKey };
    expect(await s.lists.relays(withKey)).toHaveLength(1);
    expect(s.lists.state).toMatchObject({ source: 'service', key_from: 'config' });
    // A refresh ten minutes on, with the key now known, records nothing more.
    s.clock.now += REFRESH_EVERY_MS;
    s.refresh.maybe(s.svc.client, withKey);
    await s.refresh.settled();
    expect(s.svc.calls).toBe(2);
    expect(s.recorded).toEqual([service.publicKey]);
  });

  it('is not recorded when the list does not verify with the key presented', async () => {
    const forged = { ...signedBy(stranger, content()), public_key: service.publicKey };
    const expired = signedBy(service, content('2026-11-28T03:59:59.000Z'));
    for (const body of [forged, expired, { list: 'x' } as unknown as SignedRelayList]) {
      const s = setup();
      s.svc.answer = async () => body;
      await s.tick();
      expect(s.recorded).toEqual([]);
      expect(s.saved()).toBe(false);
      // Nothing to check it with: asked again in a minute.
      s.clock.now += RETRY_AFTER_MS;
      await s.tick();
      expect(s.svc.calls).toBe(2);
    }
  });

  it('is never recorded when a key is known: a list signed by another key is refused', async () => {
    for (const known of [{ configKey: service.publicKey }, { shippedKey: service.publicKey }]) {
      const s = setup(known);
      s.svc.answer = async () => signedBy(stranger, content());
      await s.tick();
      expect(s.recorded).toEqual([]);
      expect(s.saved()).toBe(false);
      expect(s.lists.state.refused).toMatchObject({ source: 'service', why: 'unknown-key' });
      expect(await s.lists.relays(s.config)).toEqual([]);
    }
  });

  it('that cannot be recorded leaves nothing kept, asked again in a minute', async () => {
    const s = setup();
    const refresh = new RelayListRefresh({
      lists: s.lists,
      recordKey: async () => {
        throw new Error('cannot save the configuration');
      },
      now: () => s.clock.now,
    });
    refresh.maybe(s.svc.client, s.config);
    await refresh.settled();
    expect(s.saved()).toBe(false);
    s.clock.now += RETRY_AFTER_MS - 1;
    refresh.maybe(s.svc.client, s.config);
    await refresh.settled();
    expect(s.svc.calls).toBe(1);
    s.clock.now += 1;
    refresh.maybe(s.svc.client, s.config);
    await refresh.settled();
    expect(s.svc.calls).toBe(2);
  });
});
