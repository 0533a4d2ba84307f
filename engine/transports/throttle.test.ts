import { describe, expect, it } from 'vitest';

import { ThrottleJudge } from './throttle.js';

/** Feeds `seconds` readings of a tunnel that moves `bytes` a second; the last window's verdict. */
function run(judge: ThrottleJudge, seconds: number, bytes: number, start = 0) {
  let total = start;
  let last = judge.feed({ bytes: total });
  for (let i = 0; i < seconds; i++) {
    total += bytes;
    last = judge.feed({ bytes: total });
  }
  return { last, total };
}

describe('ThrottleJudge', () => {
  it('says nothing until a window is full', () => {
    expect(run(new ThrottleJudge(), 7, 8_000).last).toBeNull();
  });

  it('suspects a busy trickle only (the censor’s 64 kbit/s under a download: ~8 kB/s measured)', () => {
    expect(run(new ThrottleJudge(), 8, 8_000).last).toEqual({
      bytesPerSecond: 8_000,
      suspect: true,
    });
    // Keepalives only: nothing to carry.
    expect(run(new ThrottleJudge(), 8, 120).last?.suspect).toBe(false);
    // Busy and fast: a healthy tunnel.
    expect(run(new ThrottleJudge(), 8, 2_000_000).last?.suspect).toBe(false);
    // The end of a fast download: a second of 200 kB, then quiet; slow on average, not a trickle.
    const judge = new ThrottleJudge();
    const end = run(judge, 1, 200_000);
    expect(run(judge, 7, 100, end.total).last).toMatchObject({ suspect: false });
  });

  it('judges the last window only, and starts over when the totals go back (a new tunnel)', () => {
    const judge = new ThrottleJudge({ windowSamples: 4 });
    const fast = run(judge, 10, 1_000_000);
    expect(fast.last?.suspect).toBe(false);
    // Then the trickle: after four readings the window holds only it.
    expect(run(judge, 4, 8_000, fast.total).last?.suspect).toBe(true);
    expect(judge.feed({ bytes: 10 })).toBeNull();
  });

  it('counts readings as far apart as they are', () => {
    // Readings every 20 ms of 160 bytes: 8 kB/s.
    expect(run(new ThrottleJudge({}, 0.02), 8, 160).last).toEqual({
      bytesPerSecond: 8_000,
      suspect: true,
    });
  });

  it('the burst decides: most of it lost is a throttle, a few lost or none is a path', () => {
    const judge = new ThrottleJudge();
    expect(judge.throttledBy({ sent: 20, answered: 3 })).toBe(true);
    expect(judge.throttledBy({ sent: 20, answered: 10 })).toBe(true);
    expect(judge.throttledBy({ sent: 20, answered: 17 })).toBe(false);
    expect(judge.throttledBy({ sent: 20, answered: 20 })).toBe(false);
    // A burst that could not be sent (ping missing, the tunnel gone) says nothing.
    expect(judge.throttledBy(null)).toBe(false);
    expect(judge.throttledBy({ sent: 2, answered: 0 })).toBe(false);
  });
});
