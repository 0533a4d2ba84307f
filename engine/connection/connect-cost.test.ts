// What one connect costs on the normal path, counted (issue 19): at most two control-plane
// calls (the connect answer, then the check-in through the tunnel that carries the first
// latency and answers the exit address) and at most one nftables transaction per state change,
// WireGuard and Ferry, with the kill switch on; a fallback from UDP to TCP adds at most one call.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { FetchLike } from '../../contracts/index.js';
import { injectFetch } from '../../server/testing/inject-fetch.js';
import { startControlPlane } from '../../server/testing/control-plane-harness.js';
import type { EngineEvent } from '../engine-api.js';
import { FerryError } from '../errors.js';
import { NodeLatencies } from '../catalog/node-latencies.js';
import { EngineFixture } from '../testing/engine-fixture.js';

/** Every control-plane call the engine made, as "METHOD /path", and the connects' bodies. */
const calls: string[] = [];
const connectBodies: Record<string, unknown>[] = [];
const counted =
  (fetch: FetchLike): FetchLike =>
  async (url, init) => {
    const call = `${(init.method ?? 'GET').toUpperCase()} ${new URL(url).pathname}`;
    calls.push(call);
    if (call.endsWith('/connect') && typeof init.body === 'string')
      connectBodies.push(JSON.parse(init.body) as Record<string, unknown>);
    return fetch(url, init);
  };

const fx = new EngineFixture({
  prefix: 'ferry-connect-cost-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => counted(injectFetch(h.plane.app)),
  // One network all along: the transport autopilot remembers what got through on it.
  engine: {
    networkIdentity: { read: async () => ({ gatewayMac: null, prefix: '192.168.1.0/24' }) },
  },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => fx.start());
afterEach(() => fx.stop());

/**
 * Connects and counts: the control-plane calls, the nftables transactions (the fake's apply
 * and remove), and the state changes the engine announced, from the moment of the connect.
 */
async function measuredConnect(request: Parameters<typeof fx.engine.connect>[0]) {
  const apply = vi.spyOn(fx.os.firewall, 'apply');
  const remove = vi.spyOn(fx.os.firewall, 'remove');
  const states: string[] = [];
  const stop = fx.engine.subscribe((e: EngineEvent) => {
    if (e.type === 'status' && states.at(-1) !== e.status.status) states.push(e.status.status);
  });
  calls.length = 0;
  try {
    const answer = await fx.engine.connect(request);
    return {
      answer,
      calls: [...calls],
      transactions: apply.mock.calls.length + remove.mock.calls.length,
      states,
    };
  } finally {
    stop();
    apply.mockRestore();
    remove.mockRestore();
  }
}

describe('one connect, on the normal path, with the kill switch on', () => {
  for (const protocol of ['wireguard', 'ferry'] as const) {
    it(`${protocol}: two control-plane calls, one nftables transaction per state change`, async () => {
      await fx.signIn();
      expect((await fx.engine.getConfig()).kill_switch).toBe(true);
      const m = await measuredConnect({ protocol, region: 'asia-east' });
      expect(m.answer).toMatchObject({ status: 'connected', protocol });
      expect(m.calls).toEqual(['POST /api/v1/connect', 'PUT /api/v1/status/latency']);
      expect(m.states).toEqual(['connecting', 'connected']);
      expect(m.transactions).toBe(m.states.length);
      // The connect answer and the check-in gave what whoami gave before: both exit addresses.
      expect(m.answer.exit_ip.before).not.toBeNull();
      expect(m.answer.exit_ip.after).not.toBeNull();
    });
  }

  it('a switch of region from a live tunnel costs the same, and asks for no nodes to measure', async () => {
    await fx.signIn();
    connectBodies.length = 0;
    await fx.engine.connect({ region: 'asia-east' });
    // The first connect asks for the nodes to measure (none measured yet); a connect while the
    // last round is fresh does not, so that its answer stays small (a path that drops large
    // packets, through the tunnel it replaces, still carries it).
    expect(connectBodies.at(-1)).toMatchObject({ probe_nodes: true });
    await vi.waitFor(() => expect(fx.engine.status().status).toBe('connected'));
    const m = await measuredConnect({ region: 'global' });
    expect(m.answer).toMatchObject({ status: 'connected', region: 'global' });
    expect(connectBodies.at(-1)).not.toHaveProperty('probe_nodes');
    expect(m.calls).toEqual(['POST /api/v1/connect', 'PUT /api/v1/status/latency']);
    expect(m.transactions).toBeLessThanOrEqual(m.states.length);
  });

  it('the fallback from UDP to Ferry over TCP adds one call at most', async () => {
    await fx.signIn();
    fx.tunnels.refuse = (plan) =>
      plan.transport === 'tcp' ? null : new FerryError('node-unreachable', 'no answer');
    const m = await measuredConnect({ protocol: 'wireguard', region: 'asia-east' });
    expect(m.answer).toMatchObject({ protocol: 'ferry', transport: 'tcp' });
    expect(m.calls).toEqual([
      'POST /api/v1/connect',
      'POST /api/v1/connect',
      'PUT /api/v1/status/latency',
    ]);
    // The fallback keeps the node: its Ferry transports were let out with the first policy.
    expect(m.transactions).toBeLessThanOrEqual(m.states.length);
    // On the same network again: Ferry asked for at once, over TCP first, two calls.
    await fx.engine.disconnect();
    connectBodies.length = 0;
    const again = await measuredConnect({ protocol: 'wireguard', region: 'asia-east' });
    expect(again.answer).toMatchObject({ protocol: 'ferry', transport: 'tcp' });
    expect(connectBodies).toMatchObject([{ protocol: 'ferry' }]);
    expect(again.calls).toEqual(['POST /api/v1/connect', 'PUT /api/v1/status/latency']);
  });
});

describe('latency probes, which could give the tunnel away', () => {
  it('measure the region’s nodes only while a connect on a network known to pass UDP starts with UDP, never once connected', async () => {
    // Two more nodes with probe responders: one of the region connected to, one of another.
    await fx.controlPlane.addHealthyNode('asia-east', 0.9, { probePort: 51884 });
    await fx.controlPlane.addHealthyNode('global', 0.9, { probePort: 51884 });
    await fx.signIn();
    const refresh = vi.spyOn(NodeLatencies.prototype, 'refresh');
    try {
      // A network never seen: nothing is probed (UDP is not known to pass here).
      await fx.engine.connect({ protocol: 'ferry', region: 'asia-east' });
      expect(refresh.mock.calls.flatMap(([targets]) => targets)).toEqual([]);
      expect(fx.engine.guard.facts.probes).toEqual([]);
      await fx.engine.disconnect();
      // UDP got through on it: the next connect measures the region's nodes as the tunnel
      // comes up, let out by the connecting state's policy only.
      refresh.mockClear();
      const stages: string[] = [];
      refresh.mockImplementation(async function (this: NodeLatencies, targets) {
        stages.push(`${fx.engine.guard.facts.stage}:${fx.engine.guard.facts.probes.length}`);
        expect(targets.every((t) => t.region === 'asia-east')).toBe(true);
      });
      await fx.engine.connect({ protocol: 'ferry', region: 'asia-east' });
      const measured = refresh.mock.calls.flatMap(([targets]) => targets);
      expect(measured.length).toBeGreaterThan(0);
      expect(stages).toEqual([`connecting:${measured.length}`]);
      // Connected: no probe is let out, none is sent.
      expect(fx.engine.status().status).toBe('connected');
      expect(fx.engine.guard.facts.probes).toEqual([]);
      await fx.engine.disconnect();
      // Where the tunnel starts with TCP (obfuscation on), no UDP probe goes out either.
      refresh.mockClear();
      await fx.engine.setConfigKey('obfuscation', 'on');
      await fx.engine.connect({ protocol: 'ferry', region: 'asia-east' });
      expect(refresh.mock.calls.flatMap(([targets]) => targets)).toEqual([]);
    } finally {
      refresh.mockRestore();
    }
  });
});
