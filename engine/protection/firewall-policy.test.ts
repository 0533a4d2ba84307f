import { describe, expect, it } from 'vitest';

import { replaceTableCommands } from '../os/firewall.js';
import { FERRY_FWMARK } from '../tunnel/names.js';
import {
  PROTECTION_TABLE,
  SPLIT_FWMARK,
  protectionTable,
  type ProtectionPolicy,
} from './firewall-policy.js';

const BLOCKING: ProtectionPolicy = {
  block: true,
  blockIpv6: true,
  nodes: [{ address: '198.51.100.7', port: 51820, protocol: 'udp' }],
  probes: [{ address: '198.51.100.7', port: 51884, protocol: 'udp' }],
  controlPlane: [{ address: '203.0.113.5', port: 443, protocol: 'tcp' }],
  lan: null,
  dns: ['10.64.0.1'],
  split: null,
};

type Rule = { rule: { chain: string; expr: unknown[] } };
const rules = (body: ReturnType<typeof protectionTable>, chain: string) =>
  body.filter((o): o is Rule => 'rule' in o && (o as Rule).rule.chain === chain);
const text = (r: Rule) => JSON.stringify(r.rule.expr);
const chains = (body: ReturnType<typeof protectionTable>) =>
  body.filter((o) => 'chain' in o).map((o) => (o.chain as { name: string }).name);
const setNamed = (body: ReturnType<typeof protectionTable>, name: string) =>
  body.find((o) => 'set' in o && (o.set as { name: string }).name === name)?.set as
    { elem?: unknown[] } | undefined;

describe('the protection table', () => {
  it('blocks by default: the last rule of the output and forward guards drops', () => {
    const body = protectionTable(BLOCKING);
    expect(chains(body)).toEqual(['guard_out', 'guard_forward']);
    expect(text(rules(body, 'guard_out').at(-1)!)).toBe('[{"counter":null},{"drop":null}]');
    expect(text(rules(body, 'guard_forward').at(-1)!)).toBe('[{"counter":null},{"drop":null}]');
    // It is a body nft takes (the firewall's own checks).
    expect(() => replaceTableCommands(PROTECTION_TABLE, body)).not.toThrow();
  });

  it('lets the node endpoint out only for packets with the tunnel sockets’ mark', () => {
    const node = rules(protectionTable(BLOCKING), 'guard_out').find((r) =>
      text(r).includes('198.51.100.7'),
    )!;
    expect(node.rule.expr).toEqual([
      { match: { op: '==', left: { meta: { key: 'mark' } }, right: FERRY_FWMARK } },
      {
        match: {
          op: '==',
          left: { payload: { protocol: 'ip', field: 'daddr' } },
          right: '198.51.100.7',
        },
      },
      {
        match: { op: '==', left: { payload: { protocol: 'udp', field: 'dport' } }, right: 51820 },
      },
      { accept: null },
    ]);
  });

  it('drops DNS to any resolver but the configured one, before the tunnels are let out', () => {
    const body = protectionTable(BLOCKING);
    const out = rules(body, 'guard_out').map(text);
    const dnsDrop = out.findIndex((r) => r.includes('"@dns4"'));
    const tunnels = out.findIndex((r) => r.includes('"fyt*"'));
    expect(dnsDrop).toBeGreaterThan(0);
    expect(dnsDrop).toBeLessThan(tunnels);
    expect(setNamed(body, 'dns4')?.elem).toEqual(['10.64.0.1']);
    expect(setNamed(body, 'dns6')?.elem).toBeUndefined();
  });

  it('lets the control plane and the LAN out only when told', () => {
    const closed = rules(protectionTable(BLOCKING), 'guard_out').map(text).join('\n');
    expect(closed).toContain('203.0.113.5');
    expect(closed).not.toContain('@lan4');
    const open = protectionTable({
      ...BLOCKING,
      lan: { v4: [{ prefix: { addr: '192.168.1.0', len: 24 } }], v6: [] },
    });
    expect(rules(open, 'guard_out').map(text).join('\n')).toContain('@lan4');
    expect(setNamed(open, 'lan4')?.elem).toEqual([{ prefix: { addr: '192.168.1.0', len: 24 } }]);
  });

  it('lets forwarded flows (containers, VMs) on only through a tunnel, those begun before it too', () => {
    const fwd = rules(protectionTable(BLOCKING), 'guard_forward').map(text);
    // A flow begun before the kill switch is "established": it must not pass for that alone, or
    // it keeps leaving by the default route; only its packets from a tunnel come back in.
    for (const r of fwd.filter((x) => x.includes('"ct"')))
      expect(r).toContain('{"match":{"op":"==","left":{"meta":{"key":"iifname"}},"right":"fyt*"}}');
    expect(fwd.some((r) => r.includes('"established"'))).toBe(true);
    // With allow_lan, the LAN (and replies from it) as well; nothing else.
    const open = rules(
      protectionTable({
        ...BLOCKING,
        lan: { v4: [{ prefix: { addr: '192.168.1.0', len: 24 } }], v6: [] },
      }),
      'guard_forward',
    ).map(text);
    for (const r of open.filter((x) => x.includes('"ct"')))
      expect(r).toMatch(/"iifname"\}\},"right":"fyt\*"|"saddr"\}\},"right":"@lan[46]"/);
  });

  it('without the kill switch, only IPv6 outside the tunnels is dropped and DNS is not touched', () => {
    const body = protectionTable({ ...BLOCKING, block: false });
    const out = rules(body, 'guard_out').map(text);
    expect(out.at(-1)).toContain('"ipv6"');
    expect(out.join('\n')).not.toContain('@dns4');
    expect(out.join('\n')).not.toContain('203.0.113.5');
    expect(chains(body)).not.toContain('guard_forward');
  });

  it('is empty of guards when nothing is blocked', () => {
    expect(protectionTable({ ...BLOCKING, block: false, blockIpv6: false })).toEqual([]);
  });

  it('marks the split set, restores the mark on replies, and gives direct packets their own source', () => {
    const body = protectionTable({
      ...BLOCKING,
      split: {
        route: [{ range: ['1.0.0.0', '1.0.0.255'] }, { prefix: { addr: '10.0.0.0', len: 8 } }],
        private: [{ prefix: { addr: '10.0.0.0', len: 8 } }],
      },
    });
    expect(chains(body)).toEqual([
      'split_route',
      'split_restore',
      'split_nat',
      'guard_out',
      'guard_forward',
    ]);
    // Pinned addresses first (stream mode's platform): they keep the tunnel.
    expect(text(rules(body, 'split_route')[0]!)).toBe(
      '[{"match":{"op":"==","left":{"payload":{"protocol":"ip","field":"daddr"}},"right":"@split_pinned4"}},{"return":null}]',
    );
    const mark = text(rules(body, 'split_route')[1]!);
    expect(mark).toContain('"@split_route4"');
    expect(mark).toContain(`"value":${SPLIT_FWMARK}`);
    expect(text(rules(body, 'split_nat')[0]!)).toContain('masquerade');
    // The kill switch lets the marked packets out, but not to the private ranges (allow_lan).
    const allow = rules(body, 'guard_out').find((r) => text(r).includes('@split_private4'))!;
    expect(text(allow)).toContain(`"right":${SPLIT_FWMARK}`);
    expect(text(allow)).toContain('"op":"!="');
  });

  it('refuses an endpoint that is not an address and port', () => {
    expect(() =>
      protectionTable({
        ...BLOCKING,
        nodes: [{ address: 'relay.example', port: 1, protocol: 'udp' }],
      }),
    ).toThrow(TypeError);
    expect(() =>
      protectionTable({
        ...BLOCKING,
        controlPlane: [{ address: '::1', port: 0, protocol: 'tcp' }],
      }),
    ).toThrow(TypeError);
  });
});
