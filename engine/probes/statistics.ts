// Latency statistics from probe round trips, and the EWMA that smart routing smooths them with.
// Pure: no clocks, no sockets.
import type { NodeLatency } from '../../contracts/index.js';

export interface RttSummary {
  /** Probes sent. */
  samples: number;
  /** Probes answered. */
  answered: number;
  /** Mean round trip of the answered probes, ms; null when none was answered. */
  avgMs: number | null;
  /**
   * Mean absolute difference between consecutive answered round trips, ms: the interarrival
   * jitter of RFC 3550 §6.4.1 without its 1/16 smoothing (which suits a stream of thousands of
   * packets, not five probes). null with fewer than two answers.
   */
  jitterMs: number | null;
  /** Share of probes without an answer, 0..1 (1 when none was sent). */
  loss: number;
}

/** `rtts` in the order the probes were sent; null for a probe that got no answer. */
export function summarizeRtts(rtts: readonly (number | null)[]): RttSummary {
  const answered = rtts.filter((r): r is number => r !== null && Number.isFinite(r));
  const samples = rtts.length;
  const avgMs = answered.length ? answered.reduce((a, b) => a + b, 0) / answered.length : null;
  let jitterMs: number | null = null;
  if (answered.length >= 2) {
    let sum = 0;
    for (let i = 1; i < answered.length; i++) sum += Math.abs(answered[i]! - answered[i - 1]!);
    jitterMs = sum / (answered.length - 1);
  }
  return {
    samples,
    answered: answered.length,
    avgMs,
    jitterMs,
    loss: samples === 0 ? 1 : (samples - answered.length) / samples,
  };
}

/** Weight of a new measurement in smart routing's smoothed latency. */
export const DEFAULT_EWMA_ALPHA = 0.3;

/**
 * Exponentially weighted moving average: the first sample as it is, then each new one with
 * weight `alpha` (0 < alpha <= 1; higher follows changes faster, lower flaps less).
 */
export function ewma(previous: number | undefined, sample: number, alpha = DEFAULT_EWMA_ALPHA) {
  if (!(alpha > 0 && alpha <= 1)) throw new RangeError('alpha is in (0, 1]');
  return previous === undefined || !Number.isFinite(previous)
    ? sample
    : previous + alpha * (sample - previous);
}

/**
 * The smoothed latency per node id (as POST /connect takes it in `latencies`) after a round of
 * probes. A node whose probes all went unanswered loses its entry: no stale value makes it look
 * reachable. Nodes not in `results` keep theirs.
 */
export function smoothLatencies(
  previous: Readonly<Record<string, number>>,
  results: readonly Pick<NodeLatency, 'node_id' | 'avg_ms'>[],
  alpha = DEFAULT_EWMA_ALPHA,
): Record<string, number> {
  const next: Record<string, number> = { ...previous };
  for (const r of results) {
    if (r.avg_ms === null) delete next[r.node_id];
    else next[r.node_id] = round2(ewma(previous[r.node_id], r.avg_ms, alpha));
  }
  return next;
}

export function round2(ms: number): number {
  return Math.round(ms * 100) / 100;
}
