// Average, jitter and loss of a probe series, and the EWMA smart routing smooths with.
import { describe, expect, it } from 'vitest';
import { ewma, smoothLatencies, summarizeRtts } from './statistics.js';

describe('summarizeRtts', () => {
  it('averages the answered probes and counts the others as lost', () => {
    expect(summarizeRtts([10, null, 20, 30, null])).toEqual({
      samples: 5,
      answered: 3,
      avgMs: 20,
      jitterMs: 10,
      loss: 0.4,
    });
  });

  it('takes jitter as the mean absolute difference of consecutive answers', () => {
    // |12-10| + |9-12| + |15-9| = 11 over 3 differences.
    expect(summarizeRtts([10, 12, 9, 15]).jitterMs).toBeCloseTo(11 / 3, 10);
    expect(summarizeRtts([7, 7, 7]).jitterMs).toBe(0);
  });

  it('says nothing it did not measure', () => {
    expect(summarizeRtts([null, null])).toEqual({
      samples: 2,
      answered: 0,
      avgMs: null,
      jitterMs: null,
      loss: 1,
    });
    expect(summarizeRtts([42])).toMatchObject({ avgMs: 42, jitterMs: null, loss: 0 });
    expect(summarizeRtts([])).toMatchObject({ samples: 0, avgMs: null, loss: 1 });
  });
});

describe('ewma', () => {
  it('starts at the first sample and moves by alpha of each difference', () => {
    expect(ewma(undefined, 50)).toBe(50);
    expect(ewma(50, 100, 0.2)).toBe(60);
    expect(ewma(60, 100, 1)).toBe(100);
    expect(() => ewma(1, 2, 0)).toThrow(RangeError);
    expect(() => ewma(1, 2, 1.5)).toThrow(RangeError);
  });

  it('smooths per node, drops nodes that answered nothing, keeps the others', () => {
    const before = { a: 20, b: 30, c: 40 };
    const after = smoothLatencies(
      before,
      [
        { node_id: 'a', avg_ms: 30 },
        { node_id: 'b', avg_ms: null },
        { node_id: 'd', avg_ms: 12.345 },
      ],
      0.5,
    );
    expect(after).toEqual({ a: 25, c: 40, d: 12.35 });
    expect(before).toEqual({ a: 20, b: 30, c: 40 });
  });
});
