// Heartbeats from several data planes: Ferry bytes count per device beside WireGuard's (quota
// and load), tunnels count as up from either plane, an unreadable plane does not silence the
// node or lose bytes, and degraded planes are reported.
import { getEventListeners } from 'node:events';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { ControlClient, Protocol } from '../../contracts/index.js';
import {
  HeartbeatReporter,
  type HeartbeatHooks,
  type PeerTraffic,
  type TrafficSource,
} from './heartbeat.js';

const silent = pino({ level: 'silent' });

interface Sent {
  load: number;
  rx_bps: number;
  tx_bps: number;
  fresh_handshakes: { device_id: string; latency_ms?: number }[];
  usage: { device_id: string; bytes: number }[];
  degraded: Protocol[];
}

function setup(
  opts: {
    failHeartbeat?: () => boolean;
    degraded?: () => Protocol[];
    hooks?: HeartbeatHooks;
    probeKey?: string;
  } = {},
) {
  const sent: Sent[] = [];
  const client: Pick<ControlClient, 'nodeHeartbeat'> = {
    nodeHeartbeat: async ({ body }) => {
      if (opts.failHeartbeat?.()) throw new Error('control plane unreachable');
      sent.push(body as Sent);
      return {
        feed_version: 1,
        healthy_for_seconds: 30,
        ...(opts.probeKey ? { probe_key: opts.probeKey } : {}),
      };
    },
  };
  const wg: PeerTraffic[] = [];
  const ferry: PeerTraffic[] = [];
  let ferryBroken = false;
  const sources: TrafficSource[] = [
    { name: 'wireguard', read: async () => wg.map((p) => ({ ...p })) },
    {
      name: 'ferry',
      minIdleMs: 15_000,
      read: async () => {
        if (ferryBroken) throw new Error('peerStats: tunnel failed');
        return ferry.map((p) => ({ ...p }));
      },
    },
  ];
  const reporter = new HeartbeatReporter(
    client,
    sources,
    { intervalMs: 1_000, peerIdleMs: 3_000, capacityMbps: 1 },
    silent,
    opts.degraded,
    opts.hooks,
  );
  const usageOf = (s: Sent) => Object.fromEntries(s.usage.map((u) => [u.device_id, u.bytes]));
  return {
    reporter,
    sent,
    wg,
    ferry,
    usageOf,
    breakFerry: (b: boolean) => (ferryBroken = b),
  };
}

const now = () => Date.now();

describe('HeartbeatReporter', () => {
  it('counts Ferry bytes per device with the WireGuard ones, for the quota and the load', async () => {
    const { reporter, sent, wg, ferry, usageOf } = setup();
    wg.push({
      key: 'wgkey-a',
      deviceId: 'dev_a',
      rxBytes: 1_000,
      txBytes: 500,
      lastHandshakeMs: now(),
    });
    ferry.push(
      { key: 'dev_b', deviceId: 'dev_b', rxBytes: 40_000, txBytes: 60_000, lastHandshakeMs: now() },
      { key: 'dev_a', deviceId: 'dev_a', rxBytes: 10, txBytes: 20, lastHandshakeMs: now() },
    );
    await reporter.beat();
    expect(usageOf(sent[0]!)).toEqual({ dev_a: 1_530, dev_b: 100_000 });

    // Only what was carried since the last heartbeat is reported again.
    ferry[0]!.rxBytes += 2_000_000;
    ferry[0]!.txBytes += 3_000_000;
    await reporter.beat();
    expect(usageOf(sent[1]!)).toEqual({ dev_b: 5_000_000 });
    expect(sent[1]!.rx_bps).toBeGreaterThan(0);
    expect(sent[1]!.load).toBeGreaterThan(1);
  });

  it('reports a Ferry tunnel up between keepalives, and gone once its handshakes stop', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { reporter, sent, wg, ferry } = setup();
      wg.push({ key: 'k', deviceId: 'dev_a', rxBytes: 10, txBytes: 10, lastHandshakeMs: now() });
      ferry.push({
        key: 'dev_b',
        deviceId: 'dev_b',
        rxBytes: 100,
        txBytes: 100,
        lastHandshakeMs: now() - 1_000,
      });
      await reporter.beat();
      expect(sent[0]!.fresh_handshakes.map((f) => f.device_id).sort()).toEqual(['dev_a', 'dev_b']);
      // 5 s without a byte (Ferry's keepalive interval): WireGuard's 3 s idle time has passed.
      vi.setSystemTime(now() + 5_000);
      await reporter.beat();
      expect(sent[1]!.fresh_handshakes).toEqual([{ device_id: 'dev_b' }]);
      // The client went away: no handshake for longer than a session lives.
      ferry[0]!.rxBytes += 50;
      ferry[0]!.lastHandshakeMs = now() - 200_000;
      await reporter.beat();
      expect(sent[2]!.fresh_handshakes).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps reporting when one plane cannot be read, and loses none of its bytes', async () => {
    const { reporter, sent, wg, ferry, usageOf, breakFerry } = setup();
    wg.push({ key: 'k', deviceId: 'dev_a', rxBytes: 10, txBytes: 10, lastHandshakeMs: now() });
    ferry.push({
      key: 'dev_b',
      deviceId: 'dev_b',
      rxBytes: 100,
      txBytes: 0,
      lastHandshakeMs: now(),
    });
    await reporter.beat();
    breakFerry(true);
    ferry[0]!.rxBytes = 700;
    wg[0]!.rxBytes = 30;
    await reporter.beat();
    expect(usageOf(sent[1]!)).toEqual({ dev_a: 20 });
    breakFerry(false);
    await reporter.beat();
    expect(usageOf(sent[2]!)).toEqual({ dev_b: 600 });
  });

  it('sends the bytes of a failed heartbeat with the next one', async () => {
    let fail = false;
    const { reporter, sent, ferry, usageOf } = setup({ failHeartbeat: () => fail });
    ferry.push({
      key: 'dev_b',
      deviceId: 'dev_b',
      rxBytes: 100,
      txBytes: 0,
      lastHandshakeMs: now(),
    });
    fail = true;
    await expect(reporter.beat()).rejects.toThrow(/unreachable/);
    ferry[0]!.rxBytes = 250;
    fail = false;
    await reporter.beat();
    expect(usageOf(sent[0]!)).toEqual({ dev_b: 250 });
  });

  it('reports the degraded data planes', async () => {
    let degraded: Protocol[] = ['ferry'];
    const { reporter, sent } = setup({ degraded: () => degraded });
    await reporter.beat();
    degraded = [];
    await reporter.beat();
    expect(sent.map((s) => s.degraded)).toEqual([['ferry'], []]);
  });

  it('reports its latency to each device with a live tunnel, where it measured one', async () => {
    const latency: Record<string, number> = { dev_a: 12.345, dev_c: 99 };
    const { reporter, sent, wg, ferry } = setup({ hooks: { latencyOf: (id) => latency[id] } });
    wg.push({ key: 'k', deviceId: 'dev_a', rxBytes: 10, txBytes: 10, lastHandshakeMs: now() });
    ferry.push({ key: 'dev_b', deviceId: 'dev_b', rxBytes: 1, txBytes: 1, lastHandshakeMs: now() });
    await reporter.beat();
    // dev_c has no live tunnel: its stale value is not sent.
    expect(sent[0]!.fresh_handshakes).toEqual([
      { device_id: 'dev_a', latency_ms: 12.3 },
      { device_id: 'dev_b' },
    ]);
    expect(reporter.freshDevices('wireguard')).toEqual(['dev_a']);
    expect(reporter.freshDevices('ferry')).toEqual(['dev_b']);
  });

  it('hands each answer (and the probe key in it) on', async () => {
    const answers: (string | undefined)[] = [];
    const { reporter } = setup({
      probeKey: 'k'.repeat(43) + '=',
      hooks: { onAnswer: (a) => answers.push(a.probe_key) },
    });
    await reporter.beat();
    expect(answers).toEqual(['k'.repeat(43) + '=']);
  });

  it('hands on each tunnel that just came up, once, so that it is measured at once', async () => {
    const fresh: [Protocol, string[]][] = [];
    const { reporter, wg, ferry } = setup({
      hooks: { onNewTunnels: (plane, ids) => fresh.push([plane, [...ids]]) },
    });
    wg.push({ key: 'k', deviceId: 'dev_a', rxBytes: 10, txBytes: 10, lastHandshakeMs: now() });
    ferry.push({ key: 'dev_b', deviceId: 'dev_b', rxBytes: 1, txBytes: 1, lastHandshakeMs: now() });
    await reporter.beat();
    expect(fresh).toEqual([
      ['wireguard', ['dev_a']],
      ['ferry', ['dev_b']],
    ]);
    // Still up: nothing new.
    wg[0]!.rxBytes += 10;
    ferry[0]!.rxBytes += 10;
    await reporter.beat();
    expect(fresh).toHaveLength(2);
    // Another device's first handshake: only it.
    wg.push({ key: 'k2', deviceId: 'dev_c', rxBytes: 5, txBytes: 5, lastHandshakeMs: now() });
    wg[0]!.rxBytes += 10;
    ferry[0]!.rxBytes += 10;
    await reporter.beat();
    expect(fresh.slice(2)).toEqual([['wireguard', ['dev_c']]]);
  });

  it('beats again at once when asked (a new measurement to report), not a whole interval later', async () => {
    const { sent } = setup();
    /** Until it resolves, a heartbeat is under way. */
    let held = Promise.resolve();
    const client: Pick<ControlClient, 'nodeHeartbeat'> = {
      nodeHeartbeat: async ({ body }) => {
        await held;
        sent.push(body as Sent);
        return { feed_version: 1, healthy_for_seconds: 30 };
      },
    };
    const reporter = new HeartbeatReporter(
      client,
      [],
      { intervalMs: 60_000, peerIdleMs: 3_000, capacityMbps: 1 },
      silent,
    );
    const stop = new AbortController();
    const running = reporter.run(stop.signal);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    reporter.beatSoon();
    await vi.waitFor(() => expect(sent).toHaveLength(2), { timeout: 2_000 });
    // Asked while a heartbeat is under way: the next one follows it at once.
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    reporter.beatSoon();
    await new Promise((r) => setTimeout(r, 20));
    reporter.beatSoon();
    release();
    await vi.waitFor(() => expect(sent).toHaveLength(4), { timeout: 2_000 });
    stop.abort();
    await running;
  });
  it('keeps nothing per heartbeat on the signal it runs under (nodejs/node#55351)', async () => {
    // On Node 20 every AbortSignal.any([signal, ...]) stays in `signal`'s set of dependants,
    // which a relay's run signal (its whole life long) would grow by one every heartbeat.
    const dependants = (s: AbortSignal): number => {
      const key = Object.getOwnPropertySymbols(s).find(
        (k) => k.description === 'kDependantSignals',
      );
      const set = key && (s as unknown as Record<symbol, Set<unknown> | undefined>)[key];
      return set?.size ?? 0;
    };
    let beats = 0;
    const client: Pick<ControlClient, 'nodeHeartbeat'> = {
      nodeHeartbeat: async () => {
        beats++;
        return { feed_version: 1, healthy_for_seconds: 30 };
      },
    };
    const reporter = new HeartbeatReporter(
      client,
      [],
      { intervalMs: 0, peerIdleMs: 3_000, capacityMbps: 1 },
      silent,
    );
    const stop = new AbortController();
    const running = reporter.run(stop.signal);
    await vi.waitFor(() => expect(beats).toBeGreaterThan(200), { timeout: 5_000 });
    // Woken on purpose too: beatSoon replaces what it aborts.
    for (let i = 0; i < 50; i++) {
      reporter.beatSoon();
      await new Promise((r) => setImmediate(r));
    }
    expect(dependants(stop.signal)).toBeLessThanOrEqual(1);
    expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
    stop.abort();
    await running;
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});
