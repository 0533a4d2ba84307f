// The latency chart's scale and geometry: round millisecond ticks from 0 above the highest
// sample, the clock's half minutes along the last minute(s), the newest sample at the end of the
// time axis (the left in a right-to-left language), and its accessible name in each language.
import { describe, expect, it } from 'vitest';
import { translator } from '../../../contracts/i18n/translator.js';
import {
  CHART_WIDTH,
  chartGeometry,
  chartLabel,
  clockText,
  latencyScale,
  niceStep,
  sampleTimes,
  timeScale,
} from './latency-chart.js';
import { newSamples } from './latency-panel.js';

/** A whole minute. */
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

describe('the latency scale', () => {
  it('steps of 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(40)).toBe(10);
    expect(niceStep(66)).toBe(20);
    expect(niceStep(7)).toBe(2);
    expect(niceStep(180)).toBe(50);
  });

  it('runs from 0 to a round number above the highest sample', () => {
    expect(latencyScale([40, 60, 50])).toEqual({ max: 80, ticks: [0, 20, 40, 60, 80] });
    const scale = latencyScale([12, 180]);
    expect(scale.ticks[0]).toBe(0);
    expect(scale.max).toBeGreaterThanOrEqual(180);
    expect(scale.ticks.at(-1)).toBe(scale.max);
    // Sub-millisecond latencies still get a scale.
    expect(latencyScale([0.4, 0.6]).ticks.length).toBeGreaterThan(2);
  });
});

describe('the time scale', () => {
  it('spans the last minute at least, ticks on the clock’s half minutes', () => {
    const scale = timeScale([T0 + 5_000, T0 + 10_000, T0 + 20_000]);
    expect(scale.end).toBe(T0 + 20_000);
    expect(scale.start).toBe(T0 - 40_000);
    expect(scale.ticks).toEqual([T0 - 30_000, T0]);
  });

  it('whole minutes over a longer history', () => {
    const scale = timeScale([T0 - 5 * 60_000, T0]);
    expect(scale.step).toBe(60_000);
    expect(scale.ticks).toHaveLength(6);
  });

  it('places samples without a time one interval apart before the known ones', () => {
    expect(sampleTimes(4, [T0, T0 + 2_000], T0 + 5_000)).toEqual([
      T0 - 4_000,
      T0 - 2_000,
      T0,
      T0 + 2_000,
    ]);
    // None known: one second apart, up to now.
    expect(sampleTimes(2, [], T0)).toEqual([T0 - 1_000, T0]);
  });

  it('tells new samples from a new history', () => {
    expect(newSamples([], [1, 2])).toBe(2);
    expect(newSamples([1, 2], [1, 2, 3])).toBe(1);
    expect(newSamples([1, 2, 3], [2, 3, 4])).toBe(1);
    expect(newSamples([1, 2, 3], [1, 2, 3])).toBe(0);
    expect(newSamples([1, 2, 3], [9])).toBe('afresh');
    expect(newSamples([1, 2], [])).toBe('afresh');
  });
});

describe('the chart’s geometry', () => {
  const samples = [40, 60, 50];
  const times = [T0 - 20_000, T0 - 10_000, T0];

  it('puts the newest sample at the right end, the highest highest', () => {
    const g = chartGeometry(samples, times, false);
    expect(g.points[2]!.x).toBe(g.plot.right);
    expect(g.points[0]!.x).toBeLessThan(g.points[1]!.x);
    expect(g.points[1]!.y).toBeLessThan(g.points[2]!.y);
    expect(g.points[2]!.y).toBeLessThan(g.points[0]!.y);
    expect(g.yTicks.map((tick) => tick.value)).toEqual([0, 20, 40, 60, 80]);
    expect(g.yTicks[0]!.y).toBe(g.plot.bottom);
    expect(g.axisX).toBe(g.plot.left);
  });

  it('mirrors in a right-to-left language: the newest at the left, the scale at the right', () => {
    const ltr = chartGeometry(samples, times, false);
    const rtl = chartGeometry(samples, times, true);
    expect(rtl.points[2]!.x).toBe(rtl.plot.left);
    expect(rtl.points[0]!.x).toBeGreaterThan(rtl.points[1]!.x);
    expect(rtl.axisX).toBe(rtl.plot.right);
    expect(rtl.points.map((p) => p.y)).toEqual(ltr.points.map((p) => p.y));
    expect(rtl.plot.right).toBeLessThanOrEqual(CHART_WIDTH);
  });
});

describe('the chart’s words', () => {
  it('says how many samples and their range, in the language', () => {
    const en = translator('en');
    expect(chartLabel([40, 60, 50], en, 'en')).toBe('Latency history: 3 samples, from 40 to 60 ms');
    expect(chartLabel([7], en, 'en')).toBe('Latency history: 1 sample, from 7 to 7 ms');
    expect(chartLabel([], en, 'en')).toBe('Latency history: no samples yet');
    expect(chartLabel([40, 60], translator('fa'), 'fa')).toMatch(/۲/);
    expect(chartLabel([40, 60], translator('fa'), 'fa')).toMatch(/۶۰/);
  });

  it('labels the time axis with the clock in the language’s digits', () => {
    const time = new Date(2026, 10, 28, 9, 5, 30).getTime();
    expect(clockText(time, 'en', true)).toBe('09:05:30');
    expect(clockText(time, 'en', false)).toBe('09:05');
    expect(clockText(time, 'fa', true)).toMatch(/۰۹:۰۵:۳۰/);
  });
});
