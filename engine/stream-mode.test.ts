// Stream mode in the engine against the real control plane (in process): connect --platform asks
// for a node verified for the platform (and says why none is), the status says which platform,
// and the platform's addresses are pinned to the tunnel even where the split tunnel would send
// them directly.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, SHIPPED_PLATFORMS } from '../contracts/index.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane } from '../server/testing/control-plane-harness.js';
import type { SplitTunnelSource } from './split/split-tunnel.js';
import { EngineFixture } from './testing/engine-fixture.js';
import { engineRefusal } from './testing/refusal.js';

/** Netflix's probe at an address (a mock's), so that stream mode pins it without a lookup. */
const PLATFORM_ADDRESS = '203.0.113.9';
const platforms = {
  ...SHIPPED_PLATFORMS,
  netflix: {
    ...SHIPPED_PLATFORMS.netflix!,
    domains: [],
    probe: { url: `http://${PLATFORM_ADDRESS}:8100/title/81280792` },
  },
};

/** A home country whose ranges hold the platform's address: the split would send it directly. */
const split: SplitTunnelSource = {
  homeCountry: async () => 'DE',
  countryOf: () => null,
  sets: async () => ({
    route: [{ prefix: { addr: '203.0.113.0', len: 24 } }],
    private: [{ prefix: { addr: '10.0.0.0', len: 8 } }],
  }),
};

let harness: Awaited<ReturnType<typeof startControlPlane>>;
const fx = new EngineFixture({
  prefix: 'ferry-engine-stream-',
  startControlPlane: async () => (harness = await startControlPlane('sqlite')),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: { platforms, split },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => fx.start());
afterEach(() => fx.stop());

/** A node in `region` whose own latest check served the platform. */
async function verifiedNode(region: string): Promise<string> {
  const node = await harness.addHealthyNode(region, 0.9);
  const reply = await harness.heartbeat(node.token, {
    load: 0.9,
    platforms: [
      {
        platform: 'netflix',
        reachable: true,
        region: 'JP',
        verdict: 'ok',
        checked_at: Math.floor(Date.now() / 1000),
      },
    ],
  });
  expect(reply.status).toBe(200);
  return node.id;
}

describe('stream mode', () => {
  it('connect --platform refuses when no node of the region is verified, saying so', async () => {
    await fx.signIn();
    const e = await engineRefusal(fx.engine.connect({ platform: 'netflix', region: 'global' }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('platform-unverified');
    expect(fx.engine.status().status).toBe('error');
  });

  it('lands on the verified node, says the platform, and pins its address to the tunnel', async () => {
    await fx.signIn();
    const node = await verifiedNode('asia-east');
    const answer = await fx.engine.connect({ platform: 'Netflix', region: 'asia-east' });
    expect(answer).toMatchObject({
      status: 'connected',
      mode: 'stream',
      platform: 'netflix',
      node: { id: node },
    });
    expect(answer.routing.reasons.join(' ')).toMatch(/Netflix verified/);
    // The split would send 203.0.113.0/24 directly; the platform's address keeps the tunnel.
    expect(fx.engine.guard.policy?.split).toMatchObject({ pinned: [PLATFORM_ADDRESS] });
    // A plain connect afterwards (a switch of the live tunnel) says so and pins nothing.
    const secure = await fx.engine.connect({ mode: 'secure' });
    expect(secure).toMatchObject({ mode: 'secure', platform: null });
    expect(fx.engine.guard.policy?.split?.pinned).toEqual([]);
    // And back: the live tunnel switched to stream mode says stream mode.
    expect(await fx.engine.connect({ platform: 'netflix', region: 'asia-east' })).toMatchObject({
      mode: 'stream',
      platform: 'netflix',
    });
  });

  it('refuses a platform it does not know, and a platform outside stream mode', async () => {
    await fx.signIn();
    const unknown = await engineRefusal(fx.engine.connect({ platform: 'nosuchflix' }));
    expect(unknown.code).toBe('config-invalid');
    expect(unknown.message).toMatch(/nosuchflix/);
    const secure = await engineRefusal(fx.engine.connect({ platform: 'netflix', mode: 'secure' }));
    expect(secure.code).toBe('config-invalid');
  });
});
