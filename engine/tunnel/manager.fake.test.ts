// The fake tunnel manager behaves as the connect flow's tests rely on: the latency it was given,
// the failure it was told, holds released or cancelled, events on demand, idempotent close.
import { beforeEach, describe, expect, it } from 'vitest';

import { FerryError } from '../errors.js';
import { FakeTunnelManager } from './manager.fake.js';
import { testPlan } from './plans.fake.js';
import type { TunnelEvent } from './tunnel.js';

let tunnels: FakeTunnelManager;
beforeEach(() => {
  tunnels = new FakeTunnelManager();
});

describe('the fake tunnel manager', () => {
  it('brings tunnels up with the latency set, and records each plan', async () => {
    tunnels.latencyMs = 23.4;
    const plan = testPlan('ferry');
    const t = await tunnels.up(plan);
    expect(t).toMatchObject({ interfaceName: plan.interfaceName, protocol: 'ferry' });
    expect(t.latencyMs()).toBe(23.4);
    expect(tunnels.plans).toEqual([plan]);
    expect(tunnels.open()).toEqual([plan.interfaceName]);
    expect(tunnels.last()).toBe(t);
  });

  it('fails the next up() with the error set, once', async () => {
    tunnels.failNext = new FerryError('node-unreachable', 'no answer');
    await expect(tunnels.up(testPlan('wireguard'))).rejects.toMatchObject({
      code: 'node-unreachable',
    });
    expect(tunnels.open()).toEqual([]);
    await tunnels.up(testPlan('wireguard'));
    expect(tunnels.open()).toHaveLength(1);
  });

  it('refuses a name in use and names that are not ours, as the real one does', async () => {
    await tunnels.up(testPlan('wireguard'));
    await expect(tunnels.up(testPlan('ferry'))).rejects.toMatchObject({ code: 'tunnel-failed' });
    await expect(tunnels.up(testPlan('ferry', { interfaceName: 'wg0' }))).rejects.toThrow(
      TypeError,
    );
  });

  it('holds an up() until released', async () => {
    const release = tunnels.holdNext();
    let done = false;
    const up = tunnels.up(testPlan('wireguard')).then((t) => ((done = true), t));
    await tunnels.waitForPending();
    expect(done).toBe(false);
    expect(tunnels.open()).toEqual([]);
    release();
    await up;
    expect(tunnels.open()).toHaveLength(1);
  });

  it('rejects a held up() with cancelled when its signal aborts, leaving nothing', async () => {
    tunnels.holdNext();
    const ac = new AbortController();
    const up = tunnels.up(testPlan('wireguard'), ac.signal);
    await tunnels.waitForPending();
    ac.abort();
    await expect(up).rejects.toMatchObject({ code: 'cancelled' });
    expect(tunnels.open()).toEqual([]);
    await expect(tunnels.up(testPlan('wireguard'), ac.signal)).rejects.toMatchObject({
      code: 'cancelled',
    });
  });

  it('emits latency, lost, restored and rekey on demand, and nothing after close', async () => {
    const t = await tunnels.up(testPlan('ferry'));
    const events: TunnelEvent[] = [];
    const off = t.on((e) => events.push(e));
    const fake = tunnels.last();
    fake.measure(7);
    fake.lose('the node stopped answering');
    fake.restore();
    fake.rekey('AES-256-GCM');
    expect(events).toEqual([
      { type: 'latency', ms: 7 },
      { type: 'lost', reason: 'the node stopped answering' },
      { type: 'restored' },
      { type: 'rekey', cipher: 'AES-256-GCM' },
    ]);
    expect(t.latencyMs()).toBe(7);
    off();
    fake.measure(8);
    expect(events).toHaveLength(4);
    t.on((e) => events.push(e));
    await t.close();
    await t.close();
    fake.measure(9);
    expect(events).toHaveLength(4);
    expect(fake).toMatchObject({ closed: true, closeCalls: 2 });
    expect(tunnels.open()).toEqual([]);
  });

  it('counts cleanups', async () => {
    await tunnels.cleanupLeftovers();
    expect(tunnels.cleanupCalls).toBe(1);
  });
});
