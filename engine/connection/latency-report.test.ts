// The latency reporter: the first measurement at once, then at most one per interval carrying
// the newest value, nothing after stop, a failed send harmless.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LatencyReporter } from './latency-report.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('LatencyReporter', () => {
  it('sends at once, then the newest value once per interval', async () => {
    const sent: [number, string][] = [];
    const r = new LatencyReporter(
      async (ms, s) => sent.push([ms, s]),
      1000,
      () => Date.now(),
    );
    r.measured(12.34, 's1');
    expect(sent).toEqual([[12.3, 's1']]);
    r.measured(15, 's1');
    r.measured(17, 's1');
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toEqual([
      [12.3, 's1'],
      [17, 's1'],
    ]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toHaveLength(2);
  });

  it('drops what is scheduled on stop and sends nothing after', async () => {
    const sent: number[] = [];
    const r = new LatencyReporter(
      async (ms) => sent.push(ms),
      1000,
      () => Date.now(),
    );
    r.measured(10, 's');
    r.measured(11, 's');
    r.stop();
    r.measured(12, 's');
    await vi.advanceTimersByTimeAsync(3000);
    expect(sent).toEqual([10]);
  });

  it('takes a failed send in its stride', async () => {
    let calls = 0;
    const r = new LatencyReporter(
      () => {
        calls += 1;
        return Promise.reject(new Error('unreachable'));
      },
      1000,
      () => Date.now(),
    );
    r.measured(10, 's');
    await vi.advanceTimersByTimeAsync(1500);
    r.measured(11, 's');
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(2);
  });
});
