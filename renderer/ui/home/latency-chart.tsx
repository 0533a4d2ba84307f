// The recent latency as a small line chart (inline SVG, scaled to its samples); the numbers
// are in its accessible name, so the chart is never the only way to read them.
import { LATENCY_HISTORY_SIZE } from '../../../contracts/local-api.js';

const WIDTH = 240;
const HEIGHT = 60;
const PAD = 4;

/**
 * The samples (the engine's latency_history, ms) as chart coordinates: newest at the right
 * edge, one step per sample.
 */
export function chartPoints(samples: readonly number[]): { x: number; y: number }[] {
  if (samples.length === 0) return [];
  const values = samples;
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = Math.max(max - min, 1);
  const step = (WIDTH - 2 * PAD) / (LATENCY_HISTORY_SIZE - 1);
  const offset = LATENCY_HISTORY_SIZE - samples.length;
  return samples.map((s, i) => ({
    x: Math.round((PAD + (offset + i) * step) * 10) / 10,
    y: Math.round((HEIGHT - PAD - ((s - min) / span) * (HEIGHT - 2 * PAD)) * 10) / 10,
  }));
}

export function chartLabel(samples: readonly number[]): string {
  if (samples.length === 0) return 'Latency history: no samples yet';
  const values = samples;
  const n = samples.length;
  return `Latency history: ${n} sample${n === 1 ? '' : 's'}, from ${Math.min(...values)} to ${Math.max(...values)} ms`;
}

export function LatencyChart(props: { samples: readonly number[] }) {
  const points = chartPoints(props.samples);
  const label = chartLabel(props.samples);
  return (
    <svg
      className="latency-chart"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
    >
      <title>{label}</title>
      <line
        className="latency-chart__axis"
        x1={PAD}
        x2={WIDTH - PAD}
        y1={HEIGHT - PAD}
        y2={HEIGHT - PAD}
      />
      {points.length > 1 ? (
        <polyline
          className="latency-chart__line"
          fill="none"
          points={points.map((p) => `${p.x},${p.y}`).join(' ')}
        />
      ) : null}
      {points.map((p, i) => (
        <circle key={i} className="latency-chart__point" cx={p.x} cy={p.y} r={1.6} />
      ))}
    </svg>
  );
}
