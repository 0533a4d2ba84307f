// The latency readout's recent past: the engine's "<n>ms" texts as numbers, the last few kept
// for the chart (the engine keeps no history; this is a window onto its status events).

export interface LatencySample {
  /** When the status event arrived (ms since the epoch). */
  at: number;
  ms: number;
}

/** How many samples the chart shows. */
export const LATENCY_HISTORY_SIZE = 60;

/** "42ms" or "4.5ms" as a number; null for null or anything else. */
export function parseLatencyMs(text: string | null | undefined): number | null {
  if (!text) return null;
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The history with `sample` added, the oldest dropped beyond `size`. */
export function appendSample(
  history: readonly LatencySample[],
  sample: LatencySample,
  size = LATENCY_HISTORY_SIZE,
): LatencySample[] {
  const next = [...history, sample];
  return next.length > size ? next.slice(next.length - size) : next;
}
