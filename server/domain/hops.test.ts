// The forwarding plan's slots: the same for the same nodes whoever computes them, whatever
// their order; distinct even when hashes collide; three ports each, in the forwarding range.
import { describe, expect, it } from 'vitest';

import { entryPorts, FORWARD_BASE, FORWARD_SLOTS, hopSlots } from './hops.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `node_${i}` }));

describe('hop slots', () => {
  it('are a function of the node set, not of its order', () => {
    const nodes = ids(50);
    const a = hopSlots(nodes);
    const b = hopSlots([...nodes].reverse());
    expect([...a.entries()].sort()).toEqual([...b.entries()].sort());
  });

  it('stay put for the nodes already there when another node comes, but for a collision', () => {
    const before = hopSlots(ids(20));
    const after = hopSlots([...ids(20), { id: 'node_zz' }]);
    const moved = [...before].filter(([id, slot]) => after.get(id) !== slot);
    expect(moved.length).toBeLessThanOrEqual(1);
  });

  it('are distinct for many nodes, and their ports lie in the forwarding range', () => {
    const slots = hopSlots(ids(2_000));
    expect(new Set(slots.values()).size).toBe(2_000);
    for (const slot of slots.values()) {
      const p = entryPorts(slot, { ferry_port: 51821, tls_port: 443 });
      expect(p.wireguard_port).toBeGreaterThanOrEqual(FORWARD_BASE);
      expect(p.tls_port).toBeLessThan(FORWARD_BASE + 3 * FORWARD_SLOTS);
      expect([p.ferry_port! - p.wireguard_port, p.tls_port! - p.wireguard_port]).toEqual([1, 2]);
    }
  });

  it('offer no port for a transport the exit does not serve', () => {
    expect(entryPorts(0, { ferry_port: null, tls_port: null })).toEqual({
      wireguard_port: FORWARD_BASE,
      ferry_port: null,
      tls_port: null,
    });
  });
});
