// POST /connect: value sets, cipher honesty, regions and region rules, smart routing, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  backends,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('connect on %s', (backend) => {
  let h: Harness;
  let now = Date.now();
  let basic: string;
  let premium: string;
  const nodes: Record<string, { id: string; token: string }> = {};
  beforeAll(async () => {
    h = await startControlPlane(backend, { clock: { nowMs: () => now }, nodeHealthyForMs: 30_000 });
    basic = (await h.signIn(await h.createAccount())).token;
    const p = await h.createAccount();
    await h.setPlan(p, 'premium');
    premium = (await h.signIn(p)).token;
    nodes.global = await h.addHealthyNode('global', 0.5);
    nodes.tokyo = await h.addHealthyNode('asia-east', 0.2);
    nodes.singapore = await h.addHealthyNode('asia-southeast', 0.3);
    nodes.amsterdam = await h.addHealthyNode('eu-west', 0.1);
  });
  afterAll(async () => h?.close());

  it('accepts any letter case and tells the truth about the cipher', async () => {
    const ferry = await h.call('POST', '/connect', {
      token: basic,
      body: { protocol: 'FERRY', encryption: 'chacha20-poly1305', usage: 'Streaming' },
    });
    expect(ferry.status).toBe(200);
    expect(ferry.body).toMatchObject({
      protocol: 'ferry',
      cipher: 'ChaCha20-Poly1305',
      usage: 'streaming',
      mode: 'stream',
      notices: [],
    });
    expect(ferry.body.node.ferry_port).toBe(51821);
    expect(ferry.body.node.ferry_public_key).toMatch(/=$/);
    expect(ferry.body.rotation.session_key_seconds).toBeLessThanOrEqual(120);

    const aes = await h.call('POST', '/connect', {
      token: basic,
      body: { protocol: 'ferry', encryption: 'aes-256-gcm' },
    });
    expect(aes.body.cipher).toBe('AES-256-GCM');

    const wg = await h.call('POST', '/connect', {
      token: basic,
      body: { protocol: 'wireguard', encryption: 'ChaCha20-Poly1305' },
    });
    expect(wg.body).toMatchObject({ cipher: 'ChaCha20-Poly1305', notices: [] });
    const wgAes = await h.call('POST', '/connect', {
      token: basic,
      body: { protocol: 'WireGuard', encryption: 'AES-256-GCM' },
    });
    expect(wgAes.body.cipher).toBe('ChaCha20-Poly1305');
    expect(wgAes.body.notices).toEqual([expect.objectContaining({ code: 'cipher-substituted' })]);
    expect(wgAes.body.tunnel).toMatchObject({
      mtu: 1420,
      keepalive: 25,
      dns: ['10.64.0.1'],
      allowed_ips: ['0.0.0.0/0', '::/0'],
    });
  });

  it('keeps a plan to its regions', async () => {
    const r = await h.call('POST', '/connect', { token: basic, body: { region: 'eu-west' } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('region-not-in-plan');
    expect(r.body.allowed_regions).toEqual(['asia-east', 'global']);
    const ok = await h.call('POST', '/connect', { token: premium, body: { region: 'EU-West' } });
    expect(ok.status).toBe(200);
    expect(ok.body.node.id).toBe(nodes.amsterdam!.id);

    const regions = await h.call('GET', '/regions', { token: basic });
    const byId = Object.fromEntries(regions.body.regions.map((x: { id: string }) => [x.id, x]));
    expect(byId.global).toMatchObject({
      allowed: true,
      nodes_healthy: 1,
      load: 0.5,
      area: 'global',
    });
    expect(byId['eu-west']).toMatchObject({ allowed: false, area: 'europe', country: 'NL' });
  });

  it('auto picks the lowest client latency, with load breaking near-ties', async () => {
    const latencies = { [nodes.global!.id]: 80, [nodes.tokyo!.id]: 30, [nodes.singapore!.id]: 60 };
    const r = await h.call('POST', '/connect', {
      token: premium,
      body: { region: 'auto', latencies },
    });
    expect(r.body.node.id).toBe(nodes.tokyo!.id);
    expect(r.body.routing.reasons.join(' ')).toMatch(/lowest latency/);
    // Within the tolerance margin (30 vs 32 ms) the less loaded node wins.
    const near = { [nodes.tokyo!.id]: 32, [nodes.amsterdam!.id]: 30 };
    const fresh = await h.signIn(await createPremium(h));
    const r2 = await h.call('POST', '/connect', { token: fresh.token, body: { latencies: near } });
    expect(r2.body.node.id).toBe(nodes.amsterdam!.id);
    // ... and a device already on a near-best node stays there (no flapping).
    const sticky = await h.call('POST', '/connect', { token: premium, body: { latencies: near } });
    expect(sticky.body.node.id).toBe(nodes.tokyo!.id);
    expect(sticky.body.routing.reasons.join(' ')).toMatch(/kept current node/);
    // The client's latency to the chosen node is the status latency until the node measures.
    expect((await h.call('GET', '/status', { token: premium })).body.latency).toBe('32ms');
  });

  it('passes over the nodes a client could not reach, while another is left', async () => {
    const second = await h.addHealthyNode('asia-east', 0.6);
    try {
      const device = await h.signIn(await createPremium(h));
      const first = await h.call('POST', '/connect', {
        token: device.token,
        body: { region: 'asia-east' },
      });
      expect(first.body.node.id).toBe(nodes.tokyo!.id);
      const moved = await h.call('POST', '/connect', {
        token: device.token,
        body: { region: 'asia-east', unreachable: [nodes.tokyo!.id] },
      });
      expect(moved.status).toBe(200);
      expect(moved.body.node.id).toBe(second.id);
      expect(moved.body.notices.map((n: { code: string }) => n.code)).toContain(
        'unreachable-passed-over',
      );
      // With every node of the region unreachable, the best of them is offered again.
      const all = await h.call('POST', '/connect', {
        token: device.token,
        body: { region: 'asia-east', unreachable: [nodes.tokyo!.id, second.id] },
      });
      expect(all.status).toBe(200);
      expect([nodes.tokyo!.id, second.id]).toContain(all.body.node.id);
      const tooMany = await h.call('POST', '/connect', {
        token: device.token,
        body: { unreachable: Array.from({ length: 17 }, (_, i) => `node_${i}`) },
      });
      expect(tooMany.status).toBe(400);
    } finally {
      // Full: no longer a candidate for the tests after this one.
      await h.heartbeat(second.token, { load: 1 });
    }
  });

  it('understands region rules: an area with a strategy', async () => {
    const least = await h.call('POST', '/connect', {
      token: premium,
      body: { region: 'asia:least-load' },
    });
    expect(least.body.node.id).toBe(nodes.tokyo!.id);
    const lat = { [nodes.tokyo!.id]: 90, [nodes.singapore!.id]: 20 };
    const fast = await h.call('POST', '/connect', {
      token: premium,
      body: { region: 'asia:lowest-latency', latencies: lat },
    });
    expect(fast.body.node.id).toBe(nodes.singapore!.id);
    expect(
      (await h.call('POST', '/connect', { token: premium, body: { region: 'asia:fastest' } }))
        .status,
    ).toBe(400);
    // The free plan has one asian region.
    const basicAsia = await h.call('POST', '/connect', { token: basic, body: { region: 'asia' } });
    expect(basicAsia.body.node.id).toBe(nodes.tokyo!.id);
  });

  it('only offers healthy nodes under capacity, and says 503 when there is none', async () => {
    const spare = await h.addHealthyNode('us-west', 0.2);
    expect(
      (await h.call('POST', '/connect', { token: premium, body: { region: 'us-west' } })).body.node
        .id,
    ).toBe(spare.id);
    await h.heartbeat(spare.token, { load: 1.0 });
    const full = await h.call('POST', '/connect', { token: premium, body: { region: 'us-west' } });
    expect(full.status).toBe(503);
    expect(full.body.code).toBe('no-node-available');
    await h.heartbeat(spare.token, { load: 0.2 });
    expect(
      (await h.call('POST', '/connect', { token: premium, body: { region: 'us-west' } })).status,
    ).toBe(200);

    // Heartbeats stop: 31 s later the node no longer counts.
    now += 31_000;
    const silent = await h.call('POST', '/connect', {
      token: premium,
      body: { region: 'us-west' },
    });
    expect(silent.status).toBe(503);
    const regions = await h.call('GET', '/regions', { token: premium });
    expect(regions.body.regions.find((r: { id: string }) => r.id === 'us-west').nodes_healthy).toBe(
      0,
    );
    // With a fallback rule the device still gets a node elsewhere, and is told so.
    for (const n of Object.values(nodes)) await h.heartbeat(n.token);
    const fallback = await h.call('POST', '/connect', {
      token: premium,
      body: { region: 'north-america:fallback' },
    });
    expect(fallback.status).toBe(200);
    expect(fallback.body.notices).toEqual([expect.objectContaining({ code: 'region-fallback' })]);
    // A node that never registered its keys is never offered.
    await h.addNode('us-west');
    expect(
      (await h.call('POST', '/connect', { token: premium, body: { region: 'us-west' } })).status,
    ).toBe(503);
  });

  it('gives a node no new sessions of a protocol it reports degraded, until it recovers', async () => {
    const region = { id: 'oceania', name: 'Oceania (Sydney)', area: 'oceania', country: 'au' };
    expect(
      (await h.call('POST', '/admin/regions', { token: ADMIN_TOKEN, body: region })).status,
    ).toBe(201);
    const best = await h.addHealthyNode('oceania', 0.1);
    const other = await h.addHealthyNode('oceania', 0.6);
    const pick = async (protocol: string) => {
      const r = await h.call('POST', '/connect', {
        token: premium,
        body: { region: 'oceania', protocol },
      });
      return r.status === 200 ? r.body.node.id : r.body.code;
    };
    expect(await pick('ferry')).toBe(best.id);

    // Its Ferry peer updates fail: Ferry sessions go elsewhere, WireGuard ones still come.
    expect((await h.heartbeat(best.token, { load: 0.1, degraded: ['ferry'] })).status).toBe(200);
    expect(await pick('ferry')).toBe(other.id);
    expect(await pick('wireguard')).toBe(best.id);
    // With no node left for the protocol, the device is told so rather than sent to a stale one.
    await h.heartbeat(other.token, { load: 0.6, degraded: ['wireguard', 'ferry'] });
    expect(await pick('ferry')).toBe('no-node-available');
    expect(await pick('wireguard')).toBe(best.id);

    // A heartbeat without the report brings the node back at once.
    await h.heartbeat(best.token, { load: 0.1 });
    expect(await pick('ferry')).toBe(best.id);
    const bad = await h.heartbeat(best.token, { degraded: ['openvpn'] });
    expect(bad.status).toBe(400);
  });

  it('lets the operator add regions and nodes', async () => {
    const region = await h.call('POST', '/admin/regions', {
      token: ADMIN_TOKEN,
      body: { id: 'asia-south', name: 'Asia South (Mumbai)', area: 'asia', country: 'in' },
    });
    expect(region.status).toBe(201);
    expect(region.body).toEqual({
      id: 'asia-south',
      name: 'Asia South (Mumbai)',
      area: 'asia',
      country: 'IN',
      entry: false,
    });
    const dup = await h.call('POST', '/admin/regions', { token: ADMIN_TOKEN, body: region.body });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('region-exists');
    const mumbai = await h.addHealthyNode('asia-south');
    expect(
      (await h.call('POST', '/connect', { token: premium, body: { region: 'asia-south' } })).body
        .node.id,
    ).toBe(mumbai.id);
    const badNode = await h.call('POST', '/admin/nodes', {
      token: ADMIN_TOKEN,
      body: { region: 'atlantis', endpoint_host: 'a.example', wireguard_port: 1, capacity_mbps: 1 },
    });
    expect(badNode.status).toBe(400);
    const nodesList = await h.call('GET', '/nodes?region=asia-south', { token: premium });
    expect(nodesList.body.nodes).toEqual([
      expect.objectContaining({ id: mumbai.id, healthy: true, capacity_mbps: 10_000 }),
    ]);
  });
});

async function createPremium(h: Harness): Promise<string> {
  const account = await h.createAccount();
  await h.setPlan(account, 'premium');
  return account;
}
