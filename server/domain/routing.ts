// Smart routing: choose the best node among healthy candidates from client latency and load.
import type { RegionStrategy } from '../../contracts/index.js';

export interface Candidate {
  id: string;
  region: string;
  /** Current throughput / capacity; candidates are already under capacity. */
  load: number;
  /** The client's smoothed latency to this node, when it measured one. */
  latencyMs?: number | undefined;
}

export interface Choice {
  node: Candidate;
  reasons: string[];
}

/** Two latencies within this margin are "the same": keeps a device on its node (no flapping). */
export function toleranceMs(bestMs: number): number {
  return Math.max(5, bestMs * 0.1);
}

/** Above this load a node is "hot": its latency counts for more, up to double at full load. */
const HOT_LOAD = 0.8;

export function effectiveLatency(c: Candidate): number | undefined {
  if (c.latencyMs === undefined) return undefined;
  const penalty = c.load > HOT_LOAD ? (c.load - HOT_LOAD) * 5 : 0;
  return c.latencyMs * (1 + penalty);
}

function byLoad(a: Candidate, b: Candidate): number {
  return a.load - b.load || a.id.localeCompare(b.id);
}

export function chooseNode(
  candidates: readonly Candidate[],
  strategy: RegionStrategy,
  currentNodeId?: string,
): Choice | undefined {
  if (candidates.length === 0) return undefined;
  const current = candidates.find((c) => c.id === currentNodeId);

  if (strategy === 'least-load') {
    const sorted = [...candidates].sort(byLoad);
    const best = sorted[0]!;
    if (current && current.load - best.load < 0.1) {
      return {
        node: current,
        reasons: ['least-load: kept current node (load within 0.1 of best)'],
      };
    }
    return { node: best, reasons: [`least-load: lowest load ${best.load.toFixed(2)}`] };
  }

  const measured = candidates
    .map((c) => ({ c, eff: effectiveLatency(c) }))
    .filter((x): x is { c: Candidate; eff: number } => x.eff !== undefined);
  if (measured.length === 0) {
    const best = [...candidates].sort(byLoad)[0]!;
    if (current && current.load - best.load < 0.1) {
      return { node: current, reasons: ['no latency measurements; kept current node'] };
    }
    return {
      node: best,
      reasons: [`no latency measurements; least loaded node (load ${best.load.toFixed(2)})`],
    };
  }
  const bestEff = Math.min(...measured.map((x) => x.eff));
  const margin = toleranceMs(bestEff);
  const near = measured.filter((x) => x.eff <= bestEff + margin).map((x) => x.c);
  const reasons = [`lowest latency ${bestEff.toFixed(1)}ms (tolerance ${margin.toFixed(1)}ms)`];
  if (current && near.includes(current)) {
    return { node: current, reasons: [...reasons, 'kept current node: within tolerance'] };
  }
  const node = near.sort(byLoad)[0]!;
  if (near.length > 1) reasons.push(`load broke the tie among ${near.length} nodes`);
  if (node.load > HOT_LOAD) reasons.push(`node is hot (load ${node.load.toFixed(2)})`);
  return { node, reasons };
}
