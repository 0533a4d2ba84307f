// The latency chart's geometry and accessible name.
import { describe, expect, it } from 'vitest';
import { chartLabel, chartPoints } from './latency-chart.js';

const samples = (...ms: number[]) => ms;

describe('latency chart', () => {
  it('puts the newest sample at the right edge, one step apart, the highest at the top', () => {
    const points = chartPoints(samples(40, 60, 50));
    expect(points).toHaveLength(3);
    expect(points[2]!.x).toBeCloseTo(236, 0);
    expect(points[1]!.x - points[0]!.x).toBeCloseTo(points[2]!.x - points[1]!.x, 0);
    expect(points[1]!.y).toBe(4);
    expect(points[0]!.y).toBe(56);
    expect(points[2]!.y).toBe(30);
  });

  it('draws a flat line when every sample is the same', () => {
    const points = chartPoints(samples(42, 42));
    expect(new Set(points.map((p) => p.y)).size).toBe(1);
    expect(chartPoints([])).toEqual([]);
  });

  it('says how many samples and their range', () => {
    expect(chartLabel(samples(40, 60, 50))).toBe('Latency history: 3 samples, from 40 to 60 ms');
    expect(chartLabel(samples(7))).toBe('Latency history: 1 sample, from 7 to 7 ms');
  });
});
