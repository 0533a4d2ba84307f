// The peer feed relays long-poll: snapshots, deltas, long-poll wake-ups, plan changes, revokes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('the peer feed on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend);
  });
  afterAll(async () => h?.close());

  const peers = (nodeToken: string, after: number, wait = 0) =>
    h.call('GET', `/node/peers?after=${after}&wait=${wait}`, { token: nodeToken });

  it('gives a snapshot, then deltas, of the devices allowed on the node', async () => {
    const tokyo = await h.addHealthyNode('asia-east');
    const paris = await h.addHealthyNode('eu-west');
    const account = await h.createAccount();
    const a = await h.signIn(account, { name: 'a' });
    const b = await h.signIn(account, { name: 'b' });

    const snap = await peers(tokyo.token, 0);
    expect(snap.status).toBe(200);
    expect(snap.body.snapshot).toBe(true);
    const mine = snap.body.peers.filter((p: { device_id: string }) =>
      [a.device.id, b.device.id].includes(p.device_id),
    );
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({
      op: 'upsert',
      wireguard_public_key: a.device.wireguard_public_key,
      ferry_public_key: a.device.ferry_public_key,
      tunnel_ipv4: a.device.tunnel_ipv4,
      tunnel_ipv6: a.device.tunnel_ipv6,
      bandwidth_limit_mbps: 20,
    });
    // eu-west is not in the free plan: its node holds none of this account's peers.
    const parisSnap = await peers(paris.token, 0);
    expect(
      parisSnap.body.peers.some((p: { device_id: string }) => p.device_id === a.device.id),
    ).toBe(false);

    // Nothing new: an immediate answer with no peers and the same version.
    const idle = await peers(tokyo.token, snap.body.version);
    expect(idle.body).toEqual({ version: snap.body.version, snapshot: false, peers: [] });

    // Key rotation and revocation arrive as deltas.
    const key = newPublicKey();
    await h.call('PUT', `/devices/${a.device.id}/keys`, {
      token: a.token,
      body: { wireguard_public_key: key },
    });
    await h.call('DELETE', `/devices/${b.device.id}`, { token: a.token });
    const delta = await peers(tokyo.token, snap.body.version);
    expect(delta.body.snapshot).toBe(false);
    expect(delta.body.version).toBeGreaterThan(snap.body.version);
    expect(delta.body.peers).toEqual([
      expect.objectContaining({ device_id: a.device.id, op: 'upsert', wireguard_public_key: key }),
      { device_id: b.device.id, op: 'remove' },
    ]);

    // Upgrading the plan adds the account's devices to eu-west's node, without the rate limit.
    // (The feed's version is global: paris may start from tokyo's latest version.)
    await h.setPlan(account, 'premium');
    const upgraded = await peers(paris.token, delta.body.version);
    expect(upgraded.body.peers).toEqual([
      expect.objectContaining({
        device_id: a.device.id,
        op: 'upsert',
        bandwidth_limit_mbps: null,
        data_cap_bytes: null,
      }),
    ]);
    await h.setPlan(account, 'basic');
    const downgraded = await peers(paris.token, upgraded.body.version);
    expect(downgraded.body.peers).toEqual([{ device_id: a.device.id, op: 'remove' }]);
  });

  it('wakes a long poll as soon as a change is made', async () => {
    const node = await h.addHealthyNode('global');
    const { body } = await peers(node.token, 0);
    const started = Date.now();
    const poll = peers(node.token, body.version, 20);
    await new Promise((r) => setTimeout(r, 200));
    const account = await h.createAccount();
    const d = await h.signIn(account);
    const answer = await poll;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(answer.body.peers).toEqual([
      expect.objectContaining({ device_id: d.device.id, op: 'upsert' }),
    ]);
  });

  it('times a long poll out with no peers when nothing changes', async () => {
    const node = await h.addHealthyNode('global');
    const { body } = await peers(node.token, 0);
    const started = Date.now();
    const answer = await peers(node.token, body.version, 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(answer.body).toEqual({ version: body.version, snapshot: false, peers: [] });
  });

  it('answers a relay that is ahead of the feed (a reset database) with a snapshot', async () => {
    const node = await h.addHealthyNode('global');
    const answer = await peers(node.token, 10_000_000);
    expect(answer.body.snapshot).toBe(true);
  });

  it('refuses heartbeats from a node that has not registered', async () => {
    const node = await h.addNode('global');
    const r = await h.heartbeat(node.token);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('node-not-registered');
  });

  it('counts usage reported by nodes per account and period only', async () => {
    const node = await h.addHealthyNode('global');
    const account = await h.createAccount();
    const a = await h.signIn(account);
    const b = await h.signIn(account);
    await h.heartbeat(node.token, {
      usage: [
        { device_id: a.device.id, bytes: 1000 },
        { device_id: b.device.id, bytes: 500 },
      ],
    });
    await h.heartbeat(node.token, {
      usage: [
        { device_id: a.device.id, bytes: 24 },
        { device_id: 'dev_gone', bytes: 99 },
      ],
    });
    const acc = await h.call('GET', '/account', { token: b.token });
    expect(acc.body.usage).toMatchObject({ bytes: 1524, data_cap_bytes: 10 * 1024 ** 3 });
    expect(acc.body.usage.period).toMatch(/^\d{4}-\d{2}$/);
  });
});
