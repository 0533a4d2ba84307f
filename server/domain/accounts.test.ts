// Accounts and sign-in in the domain, on memory ports: the plan's device limit, one holder per
// public key, one answer for a wrong number and a wrong password, and plan changes that reach
// the nodes, the events and the token cache.
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from './errors.js';
import { memoryDomain, newKey, type MemoryDomain } from './testing/memory-domain.js';

const codeOf = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);

describe('AccountService', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());

  const device = (name: string, keys: { wg?: string; ferry?: string } = {}) => ({
    name,
    kind: 'laptop' as const,
    wireguard_public_key: keys.wg ?? newKey(),
    ferry_public_key: keys.ferry ?? newKey(),
  });

  it('refuses a device over the plan’s limit, lists the devices, and stores nothing of it', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    for (const name of ['a', 'b', 'c']) await d.signIn(account, { name });
    const versionBefore = (await d.stores.feed.bounds()).current;

    const refused = await d.accounts.signIn({ account_number: account, device: device('d') });
    expect(codeOf(refused)).toBe('device-limit');
    if (refused.ok) return;
    expect(refused.error.extra).toMatchObject({ device_limit: 3 });
    expect((refused.error.extra!.devices as { name: string }[]).map((x) => x.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(d.stores.tables.devices).toHaveLength(3);
    expect((await d.stores.feed.bounds()).current).toBe(versionBefore);
  });

  it('refuses a key another device holds, or one key for both kinds, on the request’s fields', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const held = newKey();
    await d.signIn(account, { wireguard_public_key: held });

    const taken = await d.accounts.signIn({
      account_number: account,
      device: device('b', { ferry: held }),
    });
    expect(codeOf(taken)).toBe('key-in-use');
    if (!taken.ok)
      expect(taken.error.errors).toEqual([
        { field: 'device.ferry_public_key', message: 'in use by another device or node' },
      ]);

    const same = newKey();
    const twice = await d.accounts.signIn({
      account_number: account,
      device: device('c', { wg: same, ferry: same }),
    });
    expect(codeOf(twice)).toBe('key-in-use');
    expect(d.stores.tables.devices).toHaveLength(1);
  });

  it('answers a wrong password as it answers an unknown number', async () => {
    d = memoryDomain();
    const account = await d.createAccount('correct horse battery');
    const wrong = await d.accounts.signIn({
      account_number: account,
      password: 'wrong',
      device: device('a'),
    });
    const unknown = await d.accounts.signIn({
      account_number: '9999888877776666',
      password: 'wrong',
      device: device('a'),
    });
    expect(codeOf(wrong)).toBe('invalid-credentials');
    expect(codeOf(unknown)).toBe('invalid-credentials');
    if (!wrong.ok && !unknown.ok) expect(wrong.error.message).toBe(unknown.error.message);
    expect(
      codeOf(
        await d.accounts.signIn({
          account_number: account,
          password: 'correct horse battery',
          device: device('a'),
        }),
      ),
    ).toBe('ok');
  });

  it('gives each device its own stable addresses', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const a = await d.signIn(account);
    const b = await d.signIn(account);
    expect(a.auth.tunnelIpv4).not.toBe(b.auth.tunnelIpv4);
    expect(a.auth.tunnelIpv6).not.toBe(b.auth.tunnelIpv6);
    expect(a.auth.tunnelIpv4).not.toMatch(/pending/);
  });

  it('changes a plan: the account’s peers are re-announced, the event published, cached tokens dropped', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const dev = await d.signIn(account);
    const tunnel = await d.deviceTunnels.create(dev.auth, dev.deviceId, {
      tag: 'tv',
      wireguard_public_key: newKey(),
      ferry_public_key: newKey(),
    });
    if (!tunnel.ok) throw tunnel.error;
    const before = (await d.stores.feed.bounds()).current;
    // The token is cached with the basic plan.
    const token = d.stores.tables.devices[0]!.token_hash;
    expect((await d.deviceAuth.authByTokenHash(token))?.plan).toBe('basic');

    expect(await d.accounts.setPlan(account, 'premium')).toEqual({
      ok: true,
      value: { account_number: account, plan: 'premium' },
    });
    const changed = await d.stores.feed.changesAfter(before, 100);
    expect(changed.deviceIds.sort()).toEqual([dev.deviceId, tunnel.value.id].sort());
    expect(d.bus.published).toContainEqual({ kind: 'feed', version: changed.version });
    expect(d.bus.published).toContainEqual({
      kind: 'account',
      accountId: dev.auth.accountId,
      change: 'plan',
    });
    expect((await d.deviceAuth.authByTokenHash(token))?.plan).toBe('premium');
    expect(codeOf(await d.accounts.setPlan('9999888877776666', 'premium'))).toBe('not-found');
  });
});
