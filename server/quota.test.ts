// Monthly data caps: reaching the cap takes an account's peers off the nodes and refuses
// connect; the next month brings them back. Premium has no cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startControlPlane, type Harness } from './testing/control-plane-harness.js';

const GiB = 1024 ** 3;

describe.each(backends())('data caps on %s', (backend) => {
  let h: Harness;
  let now = Date.UTC(2026, 10, 20, 12);
  let node: { id: string; token: string };
  beforeAll(async () => {
    h = await startControlPlane(backend, { clock: { nowMs: () => now } });
    node = await h.addHealthyNode('asia-east');
  });
  afterAll(async () => h?.close());

  const peers = (after: number) =>
    h.call('GET', `/node/peers?after=${after}`, { token: node.token });

  it('cuts an account at its cap and restores it the next month', async () => {
    const account = await h.createAccount();
    const a = await h.signIn(account, { name: 'a' });
    const b = await h.signIn(account, { name: 'b' });
    const ids = [a.device.id, b.device.id];
    const start = (await peers(0)).body;
    expect(
      start.peers.filter((p: { device_id: string }) => ids.includes(p.device_id)),
    ).toHaveLength(2);

    await h.heartbeat(node.token, { usage: [{ device_id: a.device.id, bytes: 6 * GiB }] });
    expect((await h.call('POST', '/connect', { token: b.token, body: {} })).status).toBe(200);
    const quiet = (await peers(start.version)).body;
    expect(quiet.peers).toEqual([]);

    // 6 + 5 GiB crosses the basic plan's 10 GiB.
    await h.heartbeat(node.token, { usage: [{ device_id: b.device.id, bytes: 5 * GiB }] });
    const cut = (await peers(quiet.version)).body;
    expect(cut.peers.every((p: { op: string }) => p.op === 'remove')).toBe(true);
    expect(cut.peers.map((p: { device_id: string }) => p.device_id).sort()).toEqual(
      [...ids].sort(),
    );
    const refused = await h.call('POST', '/connect', { token: a.token, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('data-cap-reached');
    expect((await h.call('GET', '/account', { token: a.token })).body.usage.bytes).toBe(11 * GiB);
    const snapshot = (await peers(0)).body;
    expect(snapshot.peers.some((p: { device_id: string }) => ids.includes(p.device_id))).toBe(
      false,
    );

    // December: the counter starts again and the devices are back on the node.
    now = Date.UTC(2026, 11, 1, 0, 0, 5);
    expect((await h.heartbeat(node.token)).status).toBe(200);
    const back = (await peers(cut.version)).body;
    expect(
      back.peers
        .filter((p: { op: string }) => p.op === 'upsert')
        .map((p: { device_id: string }) => p.device_id)
        .sort(),
    ).toEqual([...ids].sort());
    expect((await h.call('POST', '/connect', { token: a.token, body: {} })).status).toBe(200);
    expect((await h.call('GET', '/account', { token: a.token })).body.usage).toMatchObject({
      period: '2026-12',
      bytes: 0,
    });
  });

  it('never caps a premium account', async () => {
    const account = await h.createAccount();
    await h.setPlan(account, 'premium');
    const d = await h.signIn(account);
    await h.heartbeat(node.token, { usage: [{ device_id: d.device.id, bytes: 500 * GiB }] });
    expect((await h.call('POST', '/connect', { token: d.token, body: {} })).status).toBe(200);
    expect(
      (await peers(0)).body.peers.some((p: { device_id: string }) => p.device_id === d.device.id),
    ).toBe(true);
  });
});
