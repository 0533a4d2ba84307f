// The relay's platform checks on a fake clock and a fake transport: a first round at start, one
// platform at a time, then each at its own slot of the interval; a whole round when the control
// plane asks (once, however often it asks meanwhile); a platform that never answers costs one
// bounded check; and the results ride every heartbeat, whose answer can ask for a round.
import { getEventListeners } from 'node:events';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SHIPPED_PLATFORMS, type ControlClient, type PlatformDef } from '../../contracts/index.js';
import type { ProbeFetch } from '../../platform/probes/platform-probe.js';
import { HeartbeatReporter } from '../sync/heartbeat.js';
import { PlatformChecker } from './platform-checker.js';

const silent = pino({ level: 'silent' });
const START = 1_700_000_000_000;
const INTERVAL = 300_000;
const netflix = SHIPPED_PLATFORMS.netflix!;
const entry = (host: string): PlatformDef => ({
  ...netflix,
  probe: { ...netflix.probe, url: `http://${host}/title/1` },
});
/** Three platforms, each answering from a host of its own. */
const TABLE = { alpha: entry('alpha.test'), beta: entry('beta.test'), gamma: entry('gamma.test') };

type Answer = 'JP' | 'proxy' | 'silent';

function setup(timeoutMs = 10_000) {
  const answers: Record<string, Answer> = { alpha: 'JP', beta: 'proxy', gamma: 'JP' };
  const asked: { platform: string; at: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetch: ProbeFetch = async (url, init) => {
    const platform = new URL(url).hostname.split('.')[0]!;
    const path = new URL(url).pathname;
    if (path === '/title/1') asked.push({ platform, at: Date.now() - START });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const a = answers[platform]!;
      // Silence until the probe gives up (and aborts, as undici's fetch then rejects).
      if (a === 'silent')
        return await new Promise<Response>((_resolve, reject) =>
          init.signal.addEventListener('abort', () => reject(init.signal.reason), { once: true }),
        );
      if (a === 'proxy') return new Response('<html>Page not found</html>', { status: 404 });
      if (path === '/title/1')
        return new Response(null, { status: 302, headers: { location: '/jp-en/title/1' } });
      return new Response('<html>title</html>');
    } finally {
      inFlight--;
    }
  };
  const checker = new PlatformChecker({
    table: TABLE,
    intervalMs: INTERVAL,
    timeoutMs,
    fetch,
    log: silent,
  });
  const stop = new AbortController();
  const running = checker.run(stop.signal);
  return {
    checker,
    answers,
    asked,
    maxInFlight: () => maxInFlight,
    /** Listeners the checks left on the relay's stop signal. */
    stopListeners: () => getEventListeners(stop.signal, 'abort').length,
    /** The platforms asked (their first request) within the last call, in order. */
    askedSince(from: number) {
      return asked.filter((a) => a.at >= from).map((a) => a.platform);
    },
    async stop() {
      stop.abort();
      await vi.runOnlyPendingTimersAsync();
      await running;
    },
  };
}

describe('PlatformChecker', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('checks every platform at start, one at a time, then each at its own slot', async () => {
    const t = setup();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.asked).toEqual([
      { platform: 'alpha', at: 0 },
      { platform: 'beta', at: 0 },
      { platform: 'gamma', at: 0 },
    ]);
    expect(t.maxInFlight()).toBe(1);
    expect(t.checker.results()).toEqual([
      {
        platform: 'alpha',
        reachable: true,
        region: 'JP',
        verdict: 'ok',
        checked_at: START / 1000,
      },
      {
        platform: 'beta',
        reachable: true,
        region: null,
        verdict: 'proxy-detected',
        checked_at: START / 1000,
      },
      {
        platform: 'gamma',
        reachable: true,
        region: 'JP',
        verdict: 'ok',
        checked_at: START / 1000,
      },
    ]);
    // Spread over the next interval: a third of it apart, then every interval at the same slot.
    await vi.advanceTimersByTimeAsync(2 * INTERVAL + INTERVAL / 2);
    expect(t.asked.slice(3)).toEqual([
      { platform: 'alpha', at: INTERVAL },
      { platform: 'beta', at: INTERVAL + INTERVAL / 3 },
      { platform: 'gamma', at: INTERVAL + (2 * INTERVAL) / 3 },
      { platform: 'alpha', at: 2 * INTERVAL },
      { platform: 'beta', at: 2 * INTERVAL + INTERVAL / 3 },
    ]);
    // Days of checks leave nothing behind on the relay's long-lived stop signal.
    await vi.advanceTimersByTimeAsync(100 * INTERVAL);
    expect(t.asked.length).toBeGreaterThan(300);
    expect(t.stopListeners()).toBeLessThanOrEqual(1);
    // A platform that stops serving the node shows in the next result of its slot.
    t.answers.gamma = 'proxy';
    await vi.advanceTimersByTimeAsync(INTERVAL / 2);
    expect(t.checker.results()[2]).toMatchObject({
      platform: 'gamma',
      verdict: 'proxy-detected',
      checked_at: (START + 102 * INTERVAL + (2 * INTERVAL) / 3) / 1000,
    });
    await t.stop();
  });

  it('checks every platform at once when asked, once however often it is asked meanwhile', async () => {
    const t = setup();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.asked).toHaveLength(3);
    // Nothing more until the first slot...
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.asked).toHaveLength(3);
    // ...unless the control plane asks.
    t.answers.alpha = 'proxy';
    t.checker.requestRound();
    t.checker.requestRound();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.askedSince(61_000)).toEqual(['alpha', 'beta', 'gamma']);
    expect(t.checker.results()[0]).toMatchObject({ verdict: 'proxy-detected' });
    // A request while a round is under way is answered by that round.
    t.answers.beta = 'silent';
    t.checker.requestRound();
    await vi.advanceTimersByTimeAsync(1_000);
    t.checker.requestRound();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(t.asked.slice(6)).toEqual([
      { platform: 'alpha', at: 61_000 },
      { platform: 'beta', at: 61_000 },
      // beta's check took its whole 10 s.
      { platform: 'gamma', at: 71_000 },
    ]);
    // The schedule stays: the first slot comes at its time.
    await vi.advanceTimersByTimeAsync(INTERVAL - 92_000);
    expect(t.askedSince(92_000)).toEqual(['alpha']);
    expect(t.maxInFlight()).toBe(1);
    await t.stop();
  });

  it('gives a platform that never answers its bounded time, then goes on', async () => {
    const t = setup(5_000);
    t.answers.alpha = 'silent';
    await vi.advanceTimersByTimeAsync(4_999);
    expect(t.asked.map((a) => a.platform)).toEqual(['alpha']);
    expect(t.checker.results()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.asked.map((a) => a.platform)).toEqual(['alpha', 'beta', 'gamma']);
    expect(t.checker.results()[0]).toEqual({
      platform: 'alpha',
      reachable: false,
      region: null,
      verdict: 'unreachable',
      checked_at: START / 1000,
    });
    await t.stop();
  });

  it('stops at once, even in the middle of a check', async () => {
    const t = setup();
    t.answers.alpha = 'silent';
    await vi.advanceTimersByTimeAsync(1_000);
    await t.stop();
    // The check that was cut leaves no result (nothing was learned).
    expect(t.checker.results()).toEqual([]);
  });

  it('sends its results with every heartbeat, and checks at once when the answer asks', async () => {
    const t = setup();
    await vi.advanceTimersByTimeAsync(0);
    const bodies: any[] = [];
    let ask = false;
    const client: Pick<ControlClient, 'nodeHeartbeat'> = {
      nodeHeartbeat: async ({ body }) => {
        bodies.push(body);
        return {
          feed_version: 1,
          healthy_for_seconds: 30,
          ...(ask ? { check_platforms: true } : {}),
        };
      },
    };
    // Wired as the relay agent wires it.
    const reporter = new HeartbeatReporter(
      client,
      [],
      { intervalMs: 10_000, peerIdleMs: 60_000, capacityMbps: 100 },
      silent,
      undefined,
      {
        platforms: () => t.checker.results(),
        onAnswer: (a) => {
          if (a.check_platforms) t.checker.requestRound();
        },
      },
    );
    await reporter.beat();
    expect(bodies[0].platforms.map((p: any) => `${p.platform}:${p.verdict}`)).toEqual([
      'alpha:ok',
      'beta:proxy-detected',
      'gamma:ok',
    ]);
    await vi.advanceTimersByTimeAsync(10_000);
    ask = true;
    t.answers.gamma = 'proxy';
    await reporter.beat();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.askedSince(10_000)).toEqual(['alpha', 'beta', 'gamma']);
    ask = false;
    await reporter.beat();
    expect(bodies[2].platforms[2]).toMatchObject({
      platform: 'gamma',
      verdict: 'proxy-detected',
      checked_at: (START + 10_000) / 1000,
    });
    await t.stop();
  });
});

describe('HeartbeatReporter without platform checks', () => {
  it('says nothing of platforms', async () => {
    const bodies: any[] = [];
    const reporter = new HeartbeatReporter(
      {
        nodeHeartbeat: async ({ body }) => {
          bodies.push(body);
          return { feed_version: 1, healthy_for_seconds: 30 };
        },
      },
      [],
      { intervalMs: 10_000, peerIdleMs: 60_000, capacityMbps: 100 },
      silent,
    );
    await reporter.beat();
    expect(bodies[0]).not.toHaveProperty('platforms');
  });
});
