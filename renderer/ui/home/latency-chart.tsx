// The recent latency as a line chart with its scale: milliseconds up the side (ticks at round
// numbers, in the language's digits), the clock along the bottom over the last minute or
// minutes; in a right-to-left language time runs from right to left (the newest at the left).
// The numbers are in its accessible name too, so the chart is never the only way to read them.
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import { formatMs } from '../places/region-facts.js';

export const CHART_WIDTH = 320;
export const CHART_HEIGHT = 150;
/** The plot's margins: the scale's labels sit at the start side and below. */
const AXIS_SIDE = 38;
const END_SIDE = 10;
const TOP = 22;
const BOTTOM = 24;

/** One step of a scale: 1, 2 or 5 times a power of ten, for about `parts` parts up to max. */
export function niceStep(max: number, parts = 4): number {
  const raw = Math.max(max, 1) / parts;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/** The millisecond scale: from 0 to a round number above the highest sample, and its ticks. */
export function latencyScale(samples: readonly number[]): { max: number; ticks: number[] } {
  const highest = samples.length > 0 ? Math.max(...samples) : 0;
  const step = niceStep(highest * 1.1);
  const max = Math.max(step, Math.ceil((highest * 1.1) / step) * step);
  const ticks: number[] = [];
  for (let v = 0; v <= max + step / 1000; v += step) ticks.push(Math.round(v * 1000) / 1000);
  return { max, ticks };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The time scale: the last minute at least (whole half minutes back from the newest sample),
 * with ticks on the clock's half minutes (whole minutes beyond three).
 */
export function timeScale(times: readonly number[]): {
  start: number;
  end: number;
  ticks: number[];
  step: number;
} {
  const end = times.length > 0 ? times[times.length - 1]! : 0;
  const age = times.length > 0 ? end - times[0]! : 0;
  const span = Math.max(MINUTE, Math.ceil(age / (30 * SECOND)) * 30 * SECOND);
  const start = end - span;
  const step = span > 3 * MINUTE ? MINUTE : 30 * SECOND;
  const ticks: number[] = [];
  for (let tick = Math.ceil(start / step) * step; tick <= end; tick += step) ticks.push(tick);
  return { start, end, ticks, step };
}

/**
 * When each sample was taken: the times seen for the newest ones, the others before them one
 * interval apart (the interval seen, else a second: the tunnel's probe).
 */
export function sampleTimes(count: number, known: readonly number[], now: number): number[] {
  const seen = known.slice(-count);
  const gaps = seen
    .slice(1)
    .map((t, i) => t - seen[i]!)
    .filter((g) => g > 0);
  const interval =
    gaps.length > 0 ? gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)]! : SECOND;
  const last = seen.length > 0 ? seen[seen.length - 1]! : now;
  const first = seen.length > 0 ? seen[0]! : last + interval;
  const missing = count - seen.length;
  const before = Array.from({ length: missing }, (_, i) => first - (missing - i) * interval);
  return [...before, ...seen];
}

export interface ChartGeometry {
  points: { x: number; y: number }[];
  yTicks: { value: number; y: number }[];
  xTicks: { time: number; x: number }[];
  /** The plot's box: the axes run along its start side and its bottom. */
  plot: { left: number; right: number; top: number; bottom: number };
  /** Where the y axis is drawn (the start side: left, or right in a right-to-left language). */
  axisX: number;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The chart's geometry; `rtl` mirrors the time axis (newest at the left) and the scale. */
export function chartGeometry(
  samples: readonly number[],
  times: readonly number[],
  rtl: boolean,
): ChartGeometry {
  const left = rtl ? END_SIDE : AXIS_SIDE;
  const right = CHART_WIDTH - (rtl ? AXIS_SIDE : END_SIDE);
  const top = TOP;
  const bottom = CHART_HEIGHT - BOTTOM;
  const y = latencyScale(samples);
  const x = timeScale(times);
  const span = Math.max(x.end - x.start, 1);
  const along = (time: number) => {
    const share = (time - x.start) / span;
    return round(rtl ? right - share * (right - left) : left + share * (right - left));
  };
  const up = (ms: number) => round(bottom - (ms / y.max) * (bottom - top));
  return {
    points: samples.map((s, i) => ({ x: along(times[i] ?? x.end), y: up(s) })),
    yTicks: y.ticks.map((value) => ({ value, y: up(value) })),
    xTicks: x.ticks.map((time) => ({ time, x: along(time) })),
    plot: { left, right, top, bottom },
    axisX: rtl ? right : left,
  };
}

/** "Latency history: 3 samples, from 40 to 60 ms", in the language. */
export function chartLabel(samples: readonly number[], t: Translate, language: Language): string {
  if (samples.length === 0) return t('home.latency.chartEmpty');
  return t('home.latency.chart', {
    count: samples.length,
    min: formatMs(Math.min(...samples), language),
    max: formatMs(Math.max(...samples), language),
  });
}

const clocks = new Map<string, Intl.DateTimeFormat>();

/** A tick's time on the clock, in the language ("12:05:30", "۱۲:۰۵:۳۰"). */
export function clockText(time: number, language: Language, seconds: boolean): string {
  const key = `${language}:${seconds}`;
  let f = clocks.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(language, {
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
    });
    clocks.set(key, f);
  }
  return f.format(time);
}

export function LatencyChart(props: {
  samples: readonly number[];
  times: readonly number[];
  t: Translate;
  language: Language;
  rtl: boolean;
}) {
  const { samples, times, t, language, rtl } = props;
  const g = chartGeometry(samples, times, rtl);
  const label = chartLabel(samples, t, language);
  const seconds = timeScale(times).step < MINUTE;
  const { left, right, top, bottom } = g.plot;
  const labelAnchor = rtl ? 'start' : 'end';
  const labelX = rtl ? right + 5 : left - 5;
  return (
    <svg
      className="latency-chart"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
      // The scale's numbers and the clock read left to right in every language; the geometry
      // places them (and mirrors the time axis) for a right-to-left one.
      direction="ltr"
    >
      <title>{label}</title>
      <g className="latency-chart__grid" aria-hidden="true">
        {g.yTicks.map((tick) => (
          <g key={tick.value}>
            <line
              className="latency-chart__gridline"
              x1={left}
              x2={right}
              y1={tick.y}
              y2={tick.y}
            />
            <text
              className="latency-chart__tick"
              x={labelX}
              y={tick.y}
              textAnchor={labelAnchor}
              dominantBaseline="middle"
            >
              {formatMs(tick.value, language)}
            </text>
          </g>
        ))}
        <text
          className="latency-chart__unit"
          x={g.axisX}
          y={top - 10}
          textAnchor={rtl ? 'end' : 'start'}
          dominantBaseline="auto"
        >
          {t('home.units.msUnit')}
        </text>
        {g.xTicks.map((tick) => (
          <g key={tick.time}>
            <line
              className="latency-chart__tickmark"
              x1={tick.x}
              x2={tick.x}
              y1={bottom}
              y2={bottom + 4}
            />
            <text className="latency-chart__tick" x={tick.x} y={bottom + 16} textAnchor="middle">
              {clockText(tick.time, language, seconds)}
            </text>
          </g>
        ))}
        <line className="latency-chart__axis" x1={left} x2={right} y1={bottom} y2={bottom} />
        <line className="latency-chart__axis" x1={g.axisX} x2={g.axisX} y1={top} y2={bottom} />
      </g>
      {g.points.length > 1 ? (
        <polyline
          className="latency-chart__line"
          fill="none"
          points={g.points.map((p) => `${p.x},${p.y}`).join(' ')}
        />
      ) : null}
      {g.points.map((p, i) => (
        <circle key={i} className="latency-chart__point" cx={p.x} cy={p.y} r={2} />
      ))}
    </svg>
  );
}
