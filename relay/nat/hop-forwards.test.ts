// An entry relay's forwards as nftables: one DNAT rule per forward (its protocol and port), a
// masquerade of what was forwarded (a flag test of the connection's status, not an equality),
// the table replaced only when the list changes, removed when it is empty, names resolved.
import { describe, expect, it } from 'vitest';

import type { Firewall, NftObject, NftTable } from '../../platform/os/nftables.js';
import { HopForwards, hopForwardsBody } from './hop-forwards.js';

const F = { port: 40_000, protocol: 'udp' as const, to_host: '198.51.100.7', to_port: 51820 };

function recordingFirewall() {
  const calls: { op: string; table: NftTable; body?: readonly NftObject[] }[] = [];
  const fw: Pick<Firewall, 'apply' | 'remove'> = {
    apply: async (table, body) => void calls.push({ op: 'apply', table, body }),
    remove: async (table) => void calls.push({ op: 'remove', table }),
  };
  return { fw: fw as Firewall, calls };
}

describe('an entry relay’s forwards', () => {
  it('are one DNAT rule each and a masquerade of what was forwarded', () => {
    const body = hopForwardsBody([F, { ...F, protocol: 'tcp', port: 40_002, to_port: 443 }]);
    const rules = body
      .filter((o) => 'rule' in o)
      .map((o) => o.rule as { chain: string; expr: unknown[] });
    expect(rules.map((r) => r.chain)).toEqual(['prerouting', 'prerouting', 'postrouting']);
    expect(rules[0]!.expr).toContainEqual({
      dnat: { family: 'ip', addr: '198.51.100.7', port: 51820 },
    });
    expect(rules[1]!.expr).toContainEqual({
      match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 40_002 },
    });
    expect(rules[2]!.expr).toContainEqual({
      match: { op: 'in', left: { ct: { key: 'status' } }, right: 'dnat' },
    });
    expect(rules[2]!.expr).toContainEqual({ masquerade: null });
  });

  it('replace the table only when the list changes, and remove it when there is none', async () => {
    const { fw, calls } = recordingFirewall();
    const hops = new HopForwards({ firewall: fw, table: 'ferry_r1_hops', lookup: async () => [] });
    await hops.set([F]);
    await hops.set([F]);
    expect(calls.map((c) => c.op)).toEqual(['apply']);
    await hops.set([]);
    expect(calls.map((c) => c.op)).toEqual(['apply', 'remove']);
    expect(calls[0]!.table).toEqual({ family: 'inet', name: 'ferry_r1_hops' });
  });

  it('resolve a relay named by host name, and leave out one that does not resolve (tried again later)', async () => {
    const { fw, calls } = recordingFirewall();
    const names: Record<string, string[]> = { 'tokyo.relay.test': ['198.51.100.9'] };
    const hops = new HopForwards({
      firewall: fw,
      table: 't',
      lookup: async (name) => names[name] ?? [],
    });
    await hops.set([
      { ...F, to_host: 'tokyo.relay.test' },
      { ...F, port: 40_003, to_host: 'gone.relay.test' },
    ]);
    const body = JSON.stringify(calls[0]!.body);
    expect(body).toContain('198.51.100.9');
    expect(body).not.toContain('40003');
    // Not all were put in force: the same list is tried again.
    names['gone.relay.test'] = ['198.51.100.10'];
    await hops.set([
      { ...F, to_host: 'tokyo.relay.test' },
      { ...F, port: 40_003, to_host: 'gone.relay.test' },
    ]);
    expect(JSON.stringify(calls[1]!.body)).toContain('198.51.100.10');
  });
});
