// Smart routing: latency first with a tolerance margin, load for ties and hot nodes, stickiness.
import { describe, expect, it } from 'vitest';
import { chooseNode, effectiveLatency, type Candidate } from './routing.js';

const node = (id: string, load: number, latencyMs?: number): Candidate => ({
  id,
  region: 'r',
  load,
  latencyMs,
});

describe('chooseNode', () => {
  it('has nothing to choose from an empty list', () => {
    expect(chooseNode([], 'lowest-latency')).toBeUndefined();
  });

  it('picks the lowest latency', () => {
    expect(
      chooseNode([node('a', 0.1, 80), node('b', 0.5, 20), node('c', 0.1, 50)], 'lowest-latency')!
        .node.id,
    ).toBe('b');
  });

  it('breaks near-ties by load', () => {
    expect(chooseNode([node('a', 0.6, 20), node('b', 0.2, 21)], 'lowest-latency')!.node.id).toBe(
      'b',
    );
  });

  it('does not flap: a current node within the tolerance is kept', () => {
    const nodes = [node('a', 0.1, 20), node('b', 0.1, 23)];
    expect(chooseNode(nodes, 'lowest-latency', 'b')!.node.id).toBe('b');
    expect(
      chooseNode([node('a', 0.1, 20), node('b', 0.1, 40)], 'lowest-latency', 'b')!.node.id,
    ).toBe('a');
  });

  it('penalises hot nodes', () => {
    expect(effectiveLatency(node('a', 1.0, 20))).toBeCloseTo(40);
    expect(effectiveLatency(node('a', 0.5, 20))).toBe(20);
    expect(
      chooseNode([node('hot', 0.99, 20), node('cool', 0.1, 30)], 'lowest-latency')!.node.id,
    ).toBe('cool');
  });

  it('prefers measured nodes, and falls back to load when nothing was measured', () => {
    expect(
      chooseNode([node('unmeasured', 0.0), node('measured', 0.5, 90)], 'lowest-latency')!.node.id,
    ).toBe('measured');
    expect(chooseNode([node('a', 0.5), node('b', 0.2)], 'lowest-latency')!.node.id).toBe('b');
  });

  it('least-load ignores latency', () => {
    expect(chooseNode([node('a', 0.5, 1), node('b', 0.2, 500)], 'least-load')!.node.id).toBe('b');
  });
});
