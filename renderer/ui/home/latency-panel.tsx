// The live latency readout and its recent history (the engine keeps it: the status's
// latency_history).
import { latencyWords } from '../words/connection-words.js';
import { useEngine } from '../store-context.js';
import { LatencyChart } from './latency-chart.js';

/** One empty history for every render without a status (a selector's answer must be stable). */
const NO_SAMPLES: readonly number[] = [];

export function LatencyPanel() {
  const latency = useEngine((s) => s.status?.latency ?? null);
  const samples = useEngine((s) => s.status?.latency_history ?? NO_SAMPLES);
  const words = latencyWords(latency);
  return (
    <section aria-label="Latency" className="card latency">
      <h2 className="card__title">Latency</h2>
      {words ? (
        <p className="latency__value">{words}</p>
      ) : (
        <p className="latency__none">Not measured: no tunnel is up.</p>
      )}
      {samples.length > 0 ? <LatencyChart samples={samples} /> : null}
      {samples.length > 1 ? (
        <p className="hint">
          Last {samples.length} readings: {Math.min(...samples)} to {Math.max(...samples)} ms
        </p>
      ) : null}
    </section>
  );
}
