// Stream mode on the control plane: nodes report their own platform checks in heartbeats, and
// GET /regions, GET /nodes and POST /connect with `platform` follow the latest fresh result per
// node: a flagged node, or one whose result aged out, is not chosen from the next connect on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_PLATFORMS } from '../contracts/index.js';
import {
  ADMIN_TOKEN,
  backends,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

const FRESH_MS = 1_200_000;

describe.each(backends())('stream mode on %s', (backend) => {
  let h: Harness;
  let now = Date.now();
  let token: string;
  const nodes: Record<string, { id: string; token: string }> = {};
  const report = (platform: string, verdict: string, region: string | null = null, at = now) => ({
    platform,
    reachable: verdict !== 'unreachable',
    region,
    verdict,
    checked_at: Math.floor(at / 1000),
  });
  const connect = (body: Record<string, unknown>) => h.call('POST', '/connect', { token, body });
  /** Heartbeats keep every node healthy on the test's clock; platforms only where given. */
  const beatAll = async (platforms: Record<string, unknown[]> = {}) => {
    const answers: Record<string, any> = {};
    for (const [name, n] of Object.entries(nodes)) {
      const r = await h.heartbeat(n.token, platforms[name] ? { platforms: platforms[name] } : {});
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      answers[name] = r.body;
    }
    return answers;
  };

  beforeAll(async () => {
    h = await startControlPlane(backend, {
      clock: { nowMs: () => now },
      platformFreshMs: FRESH_MS,
      platforms: {
        ...SHIPPED_PLATFORMS,
        acme: { ...SHIPPED_PLATFORMS.netflix!, name: 'Acme TV', aliases: ['acme-tv'] },
      },
    });
    const account = await h.createAccount();
    await h.setPlan(account, 'premium');
    token = (await h.signIn(account)).token;
    nodes.tokyo1 = await h.addHealthyNode('asia-east');
    nodes.tokyo2 = await h.addHealthyNode('asia-east');
    nodes.zurich = await h.addHealthyNode('global');
    nodes.amsterdam = await h.addHealthyNode('eu-west');
  });
  afterAll(async () => h?.close());

  it('lands on the node verified for the platform, every time, and says why', async () => {
    await beatAll({
      tokyo1: [report('netflix', 'ok', 'JP'), report('youtube', 'ok', 'JP')],
      tokyo2: [report('netflix', 'proxy-detected'), report('youtube', 'ok', 'JP')],
      zurich: [report('netflix', 'proxy-detected')],
    });
    for (let i = 0; i < 5; i++) {
      // Even when the client measures the flagged node as the faster one.
      const r = await connect({
        usage: 'streaming',
        platform: 'netflix',
        region: 'asia-east',
        latencies: { [nodes.tokyo1!.id]: 80, [nodes.tokyo2!.id]: 5 },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({
        usage: 'streaming',
        mode: 'stream',
        node: { id: nodes.tokyo1!.id },
      });
      expect(r.body.routing.reasons[0]).toBe(
        'Netflix verified on this node 0 s ago (its own check, JP catalogue)',
      );
    }
    // Without a platform stream mode picks among all nodes as before.
    const plain = await connect({
      usage: 'streaming',
      region: 'asia-east',
      latencies: { [nodes.tokyo1!.id]: 80, [nodes.tokyo2!.id]: 5 },
    });
    expect(plain.body.node.id).toBe(nodes.tokyo2!.id);
    // An alias in any letter case; the platform alone implies streaming.
    const alias = await connect({ platform: 'YouTube', region: 'asia:least-load' });
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ usage: 'streaming', mode: 'stream', region: 'asia-east' });
  });

  it('shows per-platform verification in GET /regions and GET /nodes', async () => {
    now += 42_000;
    await beatAll();
    const regions = (await h.call('GET', '/regions', { token })).body.regions as any[];
    const of = (id: string) => regions.find((r) => r.id === id)!.platforms_verified;
    expect(of('asia-east')).toEqual(['netflix', 'youtube']);
    expect(of('global')).toEqual([]);
    expect(of('eu-west')).toEqual([]);
    const list = (await h.call('GET', '/nodes?region=asia-east', { token })).body.nodes as any[];
    const platformsOf = (id: string) => list.find((n) => n.id === id)!.platforms;
    expect(platformsOf(nodes.tokyo1!.id)).toEqual([
      { platform: 'netflix', verified: true, verdict: 'ok', region: 'JP', checked_age_seconds: 42 },
      { platform: 'youtube', verified: true, verdict: 'ok', region: 'JP', checked_age_seconds: 42 },
    ]);
    expect(platformsOf(nodes.tokyo2!.id)[0]).toEqual({
      platform: 'netflix',
      verified: false,
      verdict: 'proxy-detected',
      region: null,
      checked_age_seconds: 42,
    });
    const amsterdam = (await h.call('GET', '/nodes?region=eu-west', { token })).body.nodes[0];
    expect(amsterdam.platforms).toEqual([]);
  });

  it('stops choosing a node from the heartbeat that reports its check failed', async () => {
    const before = await connect({ usage: 'streaming', platform: 'netflix', region: 'asia-east' });
    expect(before.body.node.id).toBe(nodes.tokyo1!.id);
    await beatAll({
      tokyo1: [report('netflix', 'proxy-detected'), report('youtube', 'ok', 'JP')],
      amsterdam: [report('netflix', 'ok', 'NL')],
    });
    const after = await connect({ usage: 'streaming', platform: 'netflix', region: 'asia-east' });
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({
      code: 'platform-unverified',
      platform: 'netflix',
      verified_regions: ['eu-west'],
    });
    expect(after.body.detail).toMatch(/no node in asia-east is verified for Netflix.*eu-west/);
    // A rule with fallback goes where the platform is verified, and says so.
    const fallback = await connect({ platform: 'netflix', region: 'asia:fallback' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.node.id).toBe(nodes.amsterdam!.id);
    expect(fallback.body.notices.map((n: any) => n.code)).toContain('region-fallback');
    // auto: any verified node of the plan's regions.
    const auto = await connect({ platform: 'netflix' });
    expect(auto.body.node.id).toBe(nodes.amsterdam!.id);
  });

  it('lets results age out: a stale positive result counts no more, and the node is asked to check', async () => {
    now += FRESH_MS;
    const answers = await beatAll({ amsterdam: [report('netflix', 'ok', 'NL', now - FRESH_MS)] });
    const stale = await connect({ platform: 'netflix', region: 'eu-west' });
    expect(stale.status).toBe(409);
    expect(stale.body.verified_regions).toEqual([]);
    expect(stale.body.detail).toMatch(/no region of your plan has a verified node now/);
    // The node reports only stale results: it is to check now; nodes that report none are not.
    expect(answers.amsterdam.check_platforms).toBe(true);
    expect(answers.zurich.check_platforms).toBeUndefined();
    const regions = (await h.call('GET', '/regions', { token })).body.regions as any[];
    expect(regions.every((r) => r.platforms_verified.length === 0)).toBe(true);
    // A fresh check brings it back at once.
    const back = await beatAll({ amsterdam: [report('netflix', 'ok', 'NL')] });
    expect(back.amsterdam.check_platforms).toBeUndefined();
    expect((await connect({ platform: 'netflix', region: 'eu-west' })).status).toBe(200);
  });

  it('says 503 when there is no node at all, and 400 for a platform outside stream mode or unknown', async () => {
    const none = await connect({ platform: 'netflix', region: 'us-west' });
    expect(none.status).toBe(503);
    expect(none.body.code).toBe('no-node-available');

    const office = await connect({ usage: 'remote-work', platform: 'netflix' });
    expect(office.status).toBe(400);
    expect(office.body).toMatchObject({ code: 'validation-failed' });
    expect(office.body.errors[0]).toMatchObject({ field: 'usage' });

    const unknown = await connect({ usage: 'streaming', platform: 'myspace' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('platform');
    expect(unknown.body.errors[0].allowed).toEqual(
      expect.arrayContaining(['netflix', 'disney+', 'bbc', 'acme', 'acme-tv']),
    );
    // --platforms-file's entries, and ids only a relay reported, are platforms too.
    expect((await connect({ platform: 'Acme-TV', region: 'eu-west' })).body).toMatchObject({
      code: 'platform-unverified',
      platform: 'acme',
    });
    await beatAll({ zurich: [report('zeta', 'ok', null)] });
    const zeta = await connect({ platform: 'zeta' });
    expect(zeta.body.node.id).toBe(nodes.zurich!.id);
    expect(zeta.body.routing.reasons[0]).toBe('zeta verified on this node 0 s ago (its own check)');
    // The API document lists them all as the platforms it takes.
    const doc = (await h.call('GET', '/openapi.json')).body;
    const schema = doc.paths['/api/v1/connect'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.platform.examples).toEqual(
      expect.arrayContaining(['acme', 'netflix', 'zeta']),
    );
    expect(schema.dependentSchemas.platform.properties.usage.pattern).toMatch(/Ss/);
  });

  it('asks a node to check now when an operator says so, once', async () => {
    const asked = await h.call('POST', `/admin/nodes/${nodes.tokyo2!.id}/check-platforms`, {
      token: ADMIN_TOKEN,
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ node_id: nodes.tokyo2!.id, requested: true });
    const fresh = [report('netflix', 'proxy-detected')];
    const first = await beatAll({ tokyo2: fresh });
    expect(first.tokyo2.check_platforms).toBe(true);
    expect(first.tokyo1.check_platforms).toBeUndefined();
    const second = await beatAll({ tokyo2: fresh });
    expect(second.tokyo2.check_platforms).toBeUndefined();
    expect(
      (await h.call('POST', '/admin/nodes/node_nosuch/check-platforms', { token: ADMIN_TOKEN }))
        .status,
    ).toBe(404);
    expect(
      (await h.call('POST', `/admin/nodes/${nodes.tokyo2!.id}/check-platforms`, { token })).status,
    ).toBe(401);
  });

  it('takes the last of two results for one platform, and refuses a malformed one', async () => {
    const twice = await h.heartbeat(nodes.zurich!.token, {
      platforms: [report('netflix', 'ok', 'CH'), report('netflix', 'proxy-detected')],
    });
    expect(twice.status).toBe(200);
    const list = (await h.call('GET', '/nodes?region=global', { token })).body.nodes as any[];
    expect(list[0].platforms.find((p: any) => p.platform === 'netflix').verdict).toBe(
      'proxy-detected',
    );
    const bad = await h.heartbeat(nodes.zurich!.token, {
      platforms: [{ ...report('netflix', 'ok'), region: 'japan' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('platforms.0.region');
  });
});
