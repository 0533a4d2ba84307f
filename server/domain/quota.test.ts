// Monthly data caps in the domain, on memory ports: reaching the cap takes an account's peers off
// the nodes and refuses connect; the next month brings them back; premium has no cap; only sums
// per account and month are kept.
import { afterEach, describe, expect, it } from 'vitest';
import { memoryDomain, type MemoryDomain } from './testing/memory-domain.js';

const GiB = 1024 ** 3;

describe('Quota', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());

  const peers = (after: number) => d.feed.read('asia-east', after, 0, new AbortController().signal);

  it('cuts an account at its cap and restores it the next month', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('asia-east');
    const account = await d.createAccount();
    const a = await d.signIn(account, { name: 'a' });
    const b = await d.signIn(account, { name: 'b' });
    const ids = [a.deviceId, b.deviceId].sort();
    const start = await peers(0);
    expect(start.peers.map((p) => p.device_id).sort()).toEqual(ids);

    const usage = (deviceId: string, bytes: number) =>
      d.inventory.heartbeat(node, {
        load: 0,
        rx_bps: 0,
        tx_bps: 0,
        usage: [{ device_id: deviceId, bytes }],
      });
    expect((await usage(a.deviceId, 6 * GiB)).ok).toBe(true);
    expect((await d.connections.connect(b.auth, {})).ok).toBe(true);
    const quiet = await peers(start.version);
    expect(quiet.peers).toEqual([]);

    // 6 + 5 GiB crosses the basic plan's 10 GiB.
    await usage(b.deviceId, 5 * GiB);
    const cut = await peers(quiet.version);
    expect(cut.peers.every((p) => p.op === 'remove')).toBe(true);
    expect(cut.peers.map((p) => p.device_id).sort()).toEqual(ids);
    const refused = await d.connections.connect(a.auth, {});
    expect(refused.ok || refused.error.code).toBe('data-cap-reached');
    expect((await d.accounts.describe(a.auth)).usage.bytes).toBe(11 * GiB);
    expect((await peers(0)).peers.some((p) => ids.includes(p.device_id))).toBe(false);
    // Counters per account and month only: nothing of either device was kept.
    expect(Object.keys(d.stores.tables.usage)).toEqual([`${a.auth.accountId}|2026-11`]);

    // December: the counter starts again and the devices are back on the node.
    d.clock.now = Date.UTC(2026, 11, 1, 0, 0, 5);
    expect((await d.inventory.heartbeat(node, { load: 0, rx_bps: 0, tx_bps: 0 })).ok).toBe(true);
    const back = await peers(cut.version);
    expect(
      back.peers
        .filter((p) => p.op === 'upsert')
        .map((p) => p.device_id)
        .sort(),
    ).toEqual(ids);
    expect((await d.connections.connect(a.auth, {})).ok).toBe(true);
    expect((await d.accounts.describe(a.auth)).usage).toMatchObject({
      period: '2026-12',
      bytes: 0,
    });
  });

  it('never caps a premium account', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('asia-east');
    const account = await d.createAccount();
    expect((await d.accounts.setPlan(account, 'premium')).ok).toBe(true);
    const dev = await d.signIn(account);
    await d.inventory.heartbeat(node, {
      load: 0,
      rx_bps: 0,
      tx_bps: 0,
      usage: [{ device_id: dev.deviceId, bytes: 500 * GiB }],
    });
    expect((await d.connections.connect(dev.auth, {})).ok).toBe(true);
    expect((await peers(0)).peers.some((p) => p.device_id === dev.deviceId)).toBe(true);
  });

  it('counts a device tunnel’s bytes to its account, and ignores devices it does not know', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('asia-east');
    const account = await d.createAccount();
    const dev = await d.signIn(account);
    const tunnel = await d.deviceTunnels.create(dev.auth, dev.deviceId, {
      tag: 'tv',
      wireguard_public_key: 'tunnel-wg-key',
      ferry_public_key: 'tunnel-ferry-key',
    });
    if (!tunnel.ok) throw tunnel.error;
    await d.inventory.heartbeat(node, {
      load: 0,
      rx_bps: 0,
      tx_bps: 0,
      usage: [
        { device_id: dev.deviceId, bytes: 1000 },
        { device_id: tunnel.value.id, bytes: 234 },
        { device_id: 'dev_gone', bytes: 5 * GiB },
      ],
    });
    expect((await d.accounts.describe(dev.auth)).usage.bytes).toBe(1234);
  });
});
