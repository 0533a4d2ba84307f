// The transport autopilot while connected, on the real control plane in process with fake
// tunnels whose totals the test drives: a throttled UDP tunnel moves to Ferry over TCP (the test
// nodes serve no TLS) and says why; a tunnel on TCP because UDP failed tries UDP again once idle.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { NetworkIdentity } from '../../platform/os/network-identity.js';
import { startControlPlane } from '../../server/testing/control-plane-harness.js';
import { injectFetch } from '../../server/testing/inject-fetch.js';
import { FerryError } from '../errors.js';
import { EngineFixture } from '../testing/engine-fixture.js';
import { watchFor } from './transport-watch.js';

const network: NetworkIdentity = { gatewayMac: 'aa:bb:cc:00:11:22', prefix: '192.168.1.0/24' };
const fx = new EngineFixture({
  prefix: 'ferry-transport-watch-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: {
    recovery: { backoffMs: [0, 50] },
    networkIdentity: { read: async () => network },
    transportWatch: {
      tickMs: 20,
      retryUdpMs: [150, 60_000],
      idleTicks: 2,
      burstPauseMs: [100],
      throttle: { windowSamples: 4 },
    },
  },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => fx.start());
afterEach(() => {
  stopPump();
  return fx.stop();
});

async function until(what: string, check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let stopPump = () => {};
/** The tunnel in use carries `bytes` every 10 ms (100 times that a second). */
function pump(bytes: number): void {
  stopPump();
  const timer = setInterval(() => {
    const t = fx.tunnels.tunnels.at(-1);
    if (!t || t.closed) return;
    t.carry(bytes);
  }, 10);
  stopPump = () => clearInterval(timer);
}

const tried = () =>
  fx.tunnels.plans.map((p) => `${p.answer.protocol}/${p.transport}${p.raceUdp ? '+udp' : ''}`);
const udpSilent = () => {
  fx.tunnels.refuse = (plan) =>
    plan.transport === 'udp' ? new FerryError('node-unreachable', 'the node did not answer') : null;
};

describe('the transport watch', () => {
  it('moves a throttled UDP tunnel to Ferry over TCP, says why, and the next connect starts there', async () => {
    await fx.signIn();
    const first = await fx.engine.connect({});
    expect(first).toMatchObject({ protocol: 'wireguard', transport: 'udp' });
    const udp = fx.tunnels.last();
    // Keepalives only (100 B/s), then busy and fast: nothing to test.
    pump(1);
    await new Promise((r) => setTimeout(r, 200));
    pump(50_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(udp.bursts).toBe(0);
    // A busy trickle (10 kB/s) whose bursts pass: a slow path, tested now and then, kept.
    pump(100);
    await until('bursts', () => udp.bursts >= 2);
    expect(tried()).toEqual(['wireguard/udp']);
    // Then the bursts lose most of their echoes: throttled.
    udp.burstAnswers = 0.1;
    await until('the switch', () => fx.engine.status().transport === 'tcp');
    await until('connected', () => fx.engine.status().status === 'connected');
    expect(tried()).toEqual(['wireguard/udp', 'ferry/tcp']);
    expect(fx.engine.status().transport_reason).toEqual({
      code: 'fallback',
      blocked: [{ transport: 'udp', blockage: 'udp-throttled' }],
      message: 'UDP is throttled on this network: using TCP',
    });
    expect(fx.engine.status().notices.find((n) => n.code === 'udp-blocked')?.message).toMatch(
      /^UDP is throttled on this network: using TCP; WireGuard has no TCP transport/,
    );
    expect((await fx.engine.getConfig()).protocol).toBe('wireguard');
    stopPump();
    await fx.engine.disconnect();
    const again = await fx.engine.connect({});
    expect(again).toMatchObject({ transport: 'tcp', transport_reason: { code: 'remembered' } });
  });

  it('tries UDP again once the tunnel is idle, and stays when it gets through', async () => {
    await fx.signIn();
    udpSilent();
    expect((await fx.engine.connect({ protocol: 'ferry' })).transport).toBe('tcp');
    fx.tunnels.refuse = null;
    // Busy: never while the user is moving data.
    pump(50_000);
    await new Promise((r) => setTimeout(r, 400));
    // One session raced UDP beside TCP, and TCP won.
    expect(tried()).toEqual(['ferry/tcp+udp']);
    pump(1);
    await until('UDP again', () => fx.engine.status().transport === 'udp');
    await until('connected', () => fx.engine.status().status === 'connected');
    expect(tried()).toEqual(['ferry/tcp+udp', 'ferry/udp']);
    expect(fx.engine.status().transport_reason).toEqual({
      code: 'retried',
      blocked: [],
      message: 'UDP gets through on this network again: using it',
    });
  });

  it('back on TCP when UDP is still blocked, and the next try waits longer', async () => {
    await fx.signIn();
    udpSilent();
    await fx.engine.connect({ protocol: 'ferry' });
    pump(1);
    await until('the try', () => tried().length === 3);
    await until('connected', () => fx.engine.status().status === 'connected');
    // UDP tried alone (2.5 s at most), then TCP again.
    expect(tried()).toEqual(['ferry/tcp+udp', 'ferry/udp', 'ferry/tcp']);
    expect(fx.engine.status()).toMatchObject({
      transport: 'tcp',
      transport_reason: { code: 'fallback', blocked: [{ blockage: 'udp-unanswered' }] },
    });
    // Back where it was: no second notice of the same blockage.
    expect(fx.engine.status().notices.filter((n) => n.code === 'udp-blocked')).toEqual([]);
    // The next wait is a minute: nothing more within a few ticks past the first wait.
    await new Promise((r) => setTimeout(r, 400));
    expect(tried()).toHaveLength(3);
  });

  it('watches only under obfuscation auto, and only where another transport is offered', () => {
    const node = (ferry: boolean) => ({
      ferry_port: ferry ? 51900 : null,
      ferry_public_key: ferry ? 'k' : null,
      tls_port: null,
      tls_server_name: null,
    });
    const live = (ferry: boolean, transport: 'udp' | 'tcp') =>
      ({ answer: { node: node(ferry) }, transport }) as Parameters<typeof watchFor>[1];
    expect(watchFor({ obfuscation: 'auto' }, live(true, 'udp'))).toBe('throttle');
    expect(watchFor({ obfuscation: 'auto' }, live(true, 'tcp'))).toBe('retry-udp');
    expect(watchFor({ obfuscation: 'auto' }, live(false, 'udp'))).toBeNull();
    expect(watchFor({ obfuscation: 'off' }, live(true, 'udp'))).toBeNull();
    expect(watchFor({ obfuscation: 'tcp' }, live(true, 'tcp'))).toBeNull();
  });
});
