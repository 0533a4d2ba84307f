// A device's tunnels in the domain, on memory ports: their own keys and addresses (never anyone
// else's, ever), one per tag, a limit per device, and removal that ends the tunnel's session.
import { afterEach, describe, expect, it } from 'vitest';
import { TUNNELS_PER_DEVICE } from '../../contracts/index.js';
import type { Result } from './errors.js';
import { memoryDomain, newKey, type MemoryDomain } from './testing/memory-domain.js';

const codeOf = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);
const keys = () => ({ wireguard_public_key: newKey(), ferry_public_key: newKey() });

describe('DeviceTunnelService', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());

  it('gives a tunnel addresses no device has, even one signed in later, and takes no device slot', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const dev = await d.signIn(account);
    const tunnel = await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: 'tv', ...keys() });
    if (!tunnel.ok) throw tunnel.error;
    const later = [await d.signIn(account), await d.signIn(account)];
    const deviceAddresses = [dev, ...later].flatMap((x) => [x.auth.tunnelIpv4, x.auth.tunnelIpv6]);
    expect(deviceAddresses).not.toContain(tunnel.value.tunnel_ipv4);
    expect(deviceAddresses).not.toContain(tunnel.value.tunnel_ipv6);
    expect(await d.deviceTunnels.list(dev.auth, dev.deviceId)).toEqual({
      ok: true,
      value: { tunnels: [tunnel.value] },
    });
  });

  it('refuses a second tunnel of one tag, one over the limit, and a key someone holds', async () => {
    d = memoryDomain();
    const dev = await d.signIn(await d.createAccount());
    const first = await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: 't0', ...keys() });
    expect(codeOf(first)).toBe('ok');
    expect(
      codeOf(await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: 't0', ...keys() })),
    ).toBe('tunnel-exists');
    const held = d.stores.tables.devices[0]!.wireguard_public_key;
    expect(
      codeOf(
        await d.deviceTunnels.create(dev.auth, dev.deviceId, {
          tag: 'x',
          wireguard_public_key: held,
          ferry_public_key: newKey(),
        }),
      ),
    ).toBe('key-in-use');
    for (let i = 1; i < TUNNELS_PER_DEVICE; i++)
      expect(
        codeOf(await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: `t${i}`, ...keys() })),
      ).toBe('ok');
    const over = await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: 'over', ...keys() });
    expect(codeOf(over)).toBe('tunnel-limit');
    expect(d.stores.tables.tunnels).toHaveLength(TUNNELS_PER_DEVICE);
  });

  it('refuses another account’s device as a missing one', async () => {
    d = memoryDomain();
    const mine = await d.signIn(await d.createAccount());
    const theirs = await d.signIn(await d.createAccount());
    expect(
      codeOf(await d.deviceTunnels.create(mine.auth, theirs.deviceId, { tag: 'tv', ...keys() })),
    ).toBe('not-found');
    expect(codeOf(await d.deviceTunnels.list(mine.auth, theirs.deviceId))).toBe('not-found');
  });

  it('removes a tunnel: its peer leaves the nodes and its session ends', async () => {
    d = memoryDomain();
    const dev = await d.signIn(await d.createAccount());
    const tunnel = await d.deviceTunnels.create(dev.auth, dev.deviceId, { tag: 'tv', ...keys() });
    if (!tunnel.ok) throw tunnel.error;
    await d.live.put({
      deviceId: tunnel.value.id,
      sessionId: 'ses_1',
      nodeId: 'node_x',
      region: 'asia-east',
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      clientLatencyMs: null,
      clientLatencyUntilMs: null,
      nodeLatencyMs: null,
      upUntilMs: null,
    });
    const before = (await d.stores.feed.bounds()).current;
    expect(await d.deviceTunnels.remove(dev.auth, dev.deviceId, 'tv')).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await d.live.get(tunnel.value.id)).toBeUndefined();
    expect(d.bus.published).toContainEqual({
      kind: 'device',
      deviceId: tunnel.value.id,
      change: 'status',
    });
    expect((await d.stores.feed.changesAfter(before, 10)).deviceIds).toEqual([tunnel.value.id]);
    expect(codeOf(await d.deviceTunnels.remove(dev.auth, dev.deviceId, 'tv'))).toBe('not-found');
  });
});
