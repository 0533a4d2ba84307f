// The relay's measurement through the tunnels: smoothed per device, every device in turn when
// there are many, a bounded number of echoes at once, and nothing kept for devices that left
// or stopped answering.
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import {
  TunnelLatency,
  measureInBackground,
  pingWith,
  systemPing,
  type EchoPing,
  type TunnelTarget,
} from './tunnel-latency.js';

function setup(opts: { maxPerRound?: number; concurrency?: number } = {}) {
  let now = 1_000_000;
  const rtt = new Map<string, number | null>();
  const pinged: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const ping: EchoPing = async (address) => {
    pinged.push(address);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    const v = rtt.get(address);
    if (v === undefined) throw new Error('no route');
    return v;
  };
  let targets: TunnelTarget[] = [];
  const meter = new TunnelLatency({
    ping,
    targets: () => targets,
    intervalMs: 1_000,
    timeoutMs: 500,
    concurrency: opts.concurrency ?? 4,
    maxPerRound: opts.maxPerRound ?? 100,
    staleAfterMs: 10_000,
    alpha: 0.5,
    nowMs: () => now,
  });
  return {
    meter,
    rtt,
    pinged,
    maxInFlight: () => maxInFlight,
    setTargets: (t: TunnelTarget[]) => (targets = t),
    advance: (ms: number) => (now += ms),
  };
}

describe('TunnelLatency', () => {
  it('measures each device with a live tunnel, smoothing its samples', async () => {
    const t = setup();
    t.setTargets([
      { deviceId: 'a', address: '10.64.0.2' },
      { deviceId: 'b', address: '10.64.0.3' },
    ]);
    t.rtt.set('10.64.0.2', 20);
    t.rtt.set('10.64.0.3', null);
    await t.meter.round();
    expect(t.meter.latencyOf('a')).toBe(20);
    // No answer, no latency: never a guess.
    expect(t.meter.latencyOf('b')).toBeUndefined();
    t.rtt.set('10.64.0.2', 40);
    await t.meter.round();
    expect(t.meter.latencyOf('a')).toBe(30);
  });

  it('forgets a device that left, and one that stopped answering', async () => {
    const t = setup();
    t.setTargets([
      { deviceId: 'a', address: '10.64.0.2' },
      { deviceId: 'b', address: '10.64.0.3' },
    ]);
    t.rtt.set('10.64.0.2', 20);
    t.rtt.set('10.64.0.3', 30);
    await t.meter.round();
    t.setTargets([{ deviceId: 'b', address: '10.64.0.3' }]);
    await t.meter.round();
    expect(t.meter.latencyOf('a')).toBeUndefined();
    t.setTargets([
      { deviceId: 'a', address: '10.64.0.2' },
      { deviceId: 'b', address: '10.64.0.3' },
    ]);
    t.rtt.set('10.64.0.2', 50);
    await t.meter.round();
    // Back after leaving: measured afresh, not smoothed with what it had before.
    expect(t.meter.latencyOf('a')).toBe(50);
    t.rtt.set('10.64.0.3', null);
    t.advance(10_001);
    await t.meter.round();
    expect(t.meter.latencyOf('b')).toBeUndefined();
  });

  it('takes turns over many devices, a bounded number at once', async () => {
    const t = setup({ maxPerRound: 3, concurrency: 2 });
    const targets = Array.from({ length: 7 }, (_, i) => ({
      deviceId: `d${i}`,
      address: `10.64.0.${i + 2}`,
    }));
    for (const x of targets) t.rtt.set(x.address, 10);
    t.setTargets(targets);
    await t.meter.round();
    await t.meter.round();
    await t.meter.round();
    expect(t.pinged).toHaveLength(9);
    expect(new Set(t.pinged).size).toBe(7);
    expect(t.maxInFlight()).toBe(2);
    expect(targets.every((x) => t.meter.latencyOf(x.deviceId) === 10)).toBe(true);
    // Three rounds per turn: a measurement outlives three turns (9 s here), not only 10 s.
    t.advance(10_001);
    expect(t.meter.latencyOf('d0')).toBeUndefined();
    const many = Array.from({ length: 400 }, (_, i) => ({
      deviceId: `m${i}`,
      address: `10.64.1.${i % 250}`,
    }));
    for (const x of many) t.rtt.set(x.address, 10);
    t.setTargets(many);
    await t.meter.round();
    // 400 devices at 3 a round: 134 rounds of 1 s per turn, so a value lasts 402 s.
    t.advance(400_000);
    expect(many.filter((x) => t.meter.latencyOf(x.deviceId) === 10)).toHaveLength(3);
  });

  it('measures the tunnels that just came up at once, bounded like a round', async () => {
    const t = setup({ maxPerRound: 3, concurrency: 2 });
    const fresh = Array.from({ length: 5 }, (_, i) => ({
      deviceId: `n${i}`,
      address: `10.64.2.${i + 2}`,
    }));
    for (const x of fresh) t.rtt.set(x.address, 7);
    t.rtt.set('10.64.2.3', null);
    t.setTargets(fresh);
    const answered = await t.meter.measureNow(fresh);
    // At most a round's worth at once (the rounds take the rest), two echoes in flight.
    expect(t.pinged).toEqual(['10.64.2.2', '10.64.2.3', '10.64.2.4']);
    expect(t.maxInFlight()).toBe(2);
    expect(answered.sort()).toEqual(['n0', 'n2']);
    expect(t.meter.latencyOf('n0')).toBe(7);
    expect(t.meter.latencyOf('n1')).toBeUndefined();
    // What it measured counts like a round's sample: the next one is smoothed with it.
    t.rtt.set('10.64.2.2', 9);
    await t.meter.round();
    expect(t.meter.latencyOf('n0')).toBe(8);
  });

  it('runs every round until stopped', async () => {
    const t = setup();
    t.setTargets([{ deviceId: 'a', address: '10.64.0.2' }]);
    t.rtt.set('10.64.0.2', 5);
    const stop = new AbortController();
    const running = t.meter.run(stop.signal);
    await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;
    expect(t.meter.latencyOf('a')).toBe(5);
  });

  it('pings only IP addresses', async () => {
    await expect(systemPing('-f', 100)).rejects.toThrow(/IP address/);
    await expect(systemPing('example.com', 100)).rejects.toThrow(/IP address/);
    // Loopback answers: the parser reads a real ping's summary.
    const rtt = await systemPing('127.0.0.1', 1_000);
    expect(rtt).toBeGreaterThanOrEqual(0);
  });

  it('hands ping one echo with a whole-second wait, and takes no echo or no ping as no answer', async () => {
    const calls: string[][] = [];
    let reply: Promise<{ exitCode: number | null; stdout: string; stderr: string }> =
      Promise.resolve({ exitCode: 1, stdout: '1 packets transmitted, 0 received', stderr: '' });
    const ping = pingWith((tool, args) => {
      calls.push([tool, ...args]);
      return reply;
    });
    expect(await ping('10.64.0.2', 1_500)).toBeNull();
    expect(calls).toEqual([['ping', '-n', '-q', '-c', '1', '-W', '2', '10.64.0.2']]);
    reply = Promise.reject(new Error('ping is not installed'));
    expect(await ping('10.64.0.2', 1_500)).toBeNull();
    reply = Promise.resolve({
      exitCode: 0,
      stdout: 'rtt min/avg/max/mdev = 0.041/0.052/0.060/0.008 ms\n',
      stderr: '',
    });
    expect(await ping('fd66:6572:7279::2', 900)).toBe(0.052);
  });
});

describe('measureInBackground', () => {
  it('hands on the devices that answered, and logs a failure instead of crashing the relay', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const log = pino({ level: 'silent' });
      const warn = vi.spyOn(log, 'warn');
      const target = [{ deviceId: 'a', address: '10.64.0.2' }];
      const handed: string[][] = [];
      measureInBackground(
        { measureNow: async () => ['a'] },
        target,
        (ids) => handed.push(ids),
        log,
      );
      await vi.waitFor(() => expect(handed).toEqual([['a']]));
      // The measurement fails, or what it hands on to does: both are logged, nothing escapes.
      measureInBackground(
        { measureNow: () => Promise.reject(new Error('clock went away')) },
        target,
        (ids) => handed.push(ids),
        log,
      );
      measureInBackground(
        { measureNow: async () => ['a'] },
        target,
        () => {
          throw new Error('heartbeat gone');
        },
        log,
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      expect(handed).toHaveLength(1);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
