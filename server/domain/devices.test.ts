// A device's management of its account's devices in the domain, on memory ports: revocation ends
// the token, the sessions and the peers of the device and its tunnels; rotation keeps keys unique.
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from './errors.js';
import { hashToken } from './secrets.js';
import { memoryDomain, newKey, type MemoryDomain } from './testing/memory-domain.js';

const codeOf = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);

const session = (deviceId: string) => ({
  deviceId,
  sessionId: `ses_${deviceId}`,
  nodeId: 'node_x',
  region: 'asia-east',
  protocol: 'wireguard' as const,
  cipher: 'ChaCha20-Poly1305' as const,
  clientLatencyMs: null,
  clientLatencyUntilMs: null,
  nodeLatencyMs: null,
  upUntilMs: null,
});

describe('DeviceService', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());

  it('revokes a device: its token, its and its tunnels’ sessions and peers all end', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const phone = await d.signIn(account, { name: 'phone' });
    const laptop = await d.signIn(account, { name: 'laptop' });
    const tunnel = await d.deviceTunnels.create(laptop.auth, laptop.deviceId, {
      tag: 'tv',
      wireguard_public_key: newKey(),
      ferry_public_key: newKey(),
    });
    if (!tunnel.ok) throw tunnel.error;
    await d.live.put(session(laptop.deviceId));
    await d.live.put(session(tunnel.value.id));
    const before = (await d.stores.feed.bounds()).current;

    expect(await d.devices.revoke(phone.auth, laptop.deviceId)).toEqual({
      ok: true,
      value: undefined,
    });

    expect(await d.deviceAuth.authByTokenHash(hashToken(laptop.token))).toBeUndefined();
    expect(d.deviceAuth.wasRevoked(laptop.deviceId)).toBe(true);
    expect(await d.live.getMany([laptop.deviceId, tunnel.value.id])).toEqual([]);
    const peers = await d.feed.read('asia-east', before, 0, new AbortController().signal);
    expect(peers.peers).toEqual([
      { device_id: laptop.deviceId, op: 'remove' },
      { device_id: tunnel.value.id, op: 'remove' },
    ]);
    expect(d.bus.published).toContainEqual({
      kind: 'device',
      deviceId: laptop.deviceId,
      change: 'revoked',
    });
    expect(d.stores.tables.tunnels).toEqual([]);
    expect((await d.devices.list(phone.auth)).map((x) => x.name)).toEqual(['phone']);
  });

  it('treats another account’s device as a missing one, and changes nothing', async () => {
    d = memoryDomain();
    const mine = await d.signIn(await d.createAccount());
    const theirs = await d.signIn(await d.createAccount());
    expect(codeOf(await d.devices.revoke(mine.auth, theirs.deviceId))).toBe('not-found');
    expect(codeOf(await d.devices.rename(mine.auth, theirs.deviceId, 'x'))).toBe('not-found');
    expect(codeOf(await d.devices.get(mine.auth, theirs.deviceId))).toBe('not-found');
    expect(await d.deviceAuth.authByTokenHash(hashToken(theirs.token))).toBeDefined();
    expect(d.stores.tables.devices.map((x) => x.name)).toEqual(['laptop', 'laptop']);
  });

  it('rotates keys, refusing one that another device or a node holds and keeping the old ones', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('asia-east');
    const account = await d.createAccount();
    const a = await d.signIn(account);
    const b = await d.signIn(account);
    const keysOf = async (id: string) => {
      const got = await d.devices.get(a.auth, id);
      if (!got.ok) throw got.error;
      return [got.value.wireguard_public_key, got.value.ferry_public_key];
    };
    const old = await keysOf(a.deviceId);
    const version = (await d.stores.feed.bounds()).current;

    const other = (await keysOf(b.deviceId))[0]!;
    expect(
      codeOf(await d.devices.rotateKeys(a.auth, a.deviceId, { ferry_public_key: other })),
    ).toBe('key-in-use');
    expect(
      codeOf(
        await d.devices.rotateKeys(a.auth, a.deviceId, {
          wireguard_public_key: node.wireguard_public_key!,
        }),
      ),
    ).toBe('key-in-use');
    expect(await keysOf(a.deviceId)).toEqual(old);
    expect((await d.stores.feed.bounds()).current).toBe(version);

    const fresh = newKey();
    const rotated = await d.devices.rotateKeys(a.auth, a.deviceId, { wireguard_public_key: fresh });
    expect(rotated.ok && rotated.value.wireguard_public_key).toBe(fresh);
    expect(await keysOf(a.deviceId)).toEqual([fresh, old[1]]);
    expect((await d.stores.feed.changesAfter(version, 10)).deviceIds).toEqual([a.deviceId]);
    expect(d.bus.published).toContainEqual({
      kind: 'device',
      deviceId: a.deviceId,
      change: 'keys',
    });
  });
});
