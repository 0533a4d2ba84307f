// The live latency readout and its recent history (the engine keeps it: the status's
// latency_history) as a chart with its scale. The engine's samples carry no times: the panel
// notes when each new one arrives, and places the older ones one interval apart before them.
import { useRef } from 'react';
import { useWords } from '../i18n/use-words.js';
import { latencyText, formatMs } from '../places/region-facts.js';
import { useEngine } from '../store-context.js';
import { LatencyChart, sampleTimes } from './latency-chart.js';

/** One empty history for every render without a status (a selector's answer must be stable). */
const NO_SAMPLES: readonly number[] = [];

/**
 * How many samples at the end of `now` are new since `before`: the history grows at its end and,
 * once full, drops its oldest; anything else is a new history (another node).
 */
export function newSamples(before: readonly number[], now: readonly number[]): number | 'afresh' {
  if (now.length === 0) return 'afresh';
  for (let dropped = 0; dropped <= before.length; dropped++) {
    const kept = before.slice(dropped);
    if (kept.length > now.length) continue;
    if (kept.every((s, i) => now[i] === s)) {
      const added = now.length - kept.length;
      // Grown at the end, or full and as many dropped at the start as came at the end.
      if (dropped === 0 || (kept.length > 0 && added === dropped)) return added;
    }
  }
  return 'afresh';
}

/** The arrival time of each sample the panel saw come in, kept across renders. */
function useSampleTimes(samples: readonly number[]): number[] {
  const seen = useRef<{ samples: readonly number[]; times: number[] }>({ samples: [], times: [] });
  const now = Date.now();
  if (seen.current.samples !== samples) {
    const added = newSamples(seen.current.samples, samples);
    const before = seen.current.times;
    let times: number[];
    if (added === 'afresh' || before.length === 0) {
      // Samples seen at once (the first render, a new history): only the newest's time is known.
      times = samples.length > 0 ? [now] : [];
    } else {
      // Several at once: spread one interval apart, the newest now.
      const spread = sampleTimes(before.length + added, before, now);
      const interval = spread.length > 1 ? spread[1]! - spread[0]! : 1000;
      const fresh = Array.from({ length: added }, (_, i) => now - (added - 1 - i) * interval);
      times = [...before, ...fresh].slice(-samples.length);
    }
    seen.current = { samples, times };
  }
  return sampleTimes(samples.length, seen.current.times, now);
}

export function LatencyPanel() {
  const { t, language, dir } = useWords();
  const latency = useEngine((s) => s.status?.latency ?? null);
  const samples = useEngine((s) => s.status?.latency_history ?? NO_SAMPLES);
  const times = useSampleTimes(samples);
  const words = latencyText(latency, t, language);
  return (
    <section aria-label={t('home.latency.label')} className="card latency">
      <h2 className="card__title">{t('home.latency.title')}</h2>
      {words ? (
        <p className="latency__value">{words}</p>
      ) : (
        <p className="latency__none">{t('home.latency.none')}</p>
      )}
      {samples.length > 0 ? (
        <LatencyChart
          samples={samples}
          times={times}
          t={t}
          language={language}
          rtl={dir === 'rtl'}
        />
      ) : null}
      {samples.length > 1 ? (
        <p className="hint">
          {t('home.latency.range', {
            count: samples.length,
            min: formatMs(Math.min(...samples), language),
            max: formatMs(Math.max(...samples), language),
          })}
        </p>
      ) : null}
    </section>
  );
}
