import { describe, expect, it } from 'vitest';

import { replaceTableCommands } from '../../platform/os/nftables.js';
import { FERRY_FWMARK } from '../tunnel/names.js';
import {
  CONTROL_FWMARK,
  PROTECTION_TABLE,
  RESOLVER_FWMARK,
  RULE_DIRECT_CT_MARK,
  RULE_SETS,
  RULE_TUNNEL_CT_MARK,
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
  dhcpLinks: [{ name: 'eth0', v4: ['192.168.1.0/24'] }],
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

  it('lets the control plane and the probe responders out only for the engine’s marked sockets', () => {
    const out = rules(protectionTable(BLOCKING), 'guard_out').map(text);
    const mark = (left: string, value: number) =>
      `{"match":{"op":"==","left":${left},"right":${value}}}`;
    const control = out.filter((r) => r.includes('203.0.113.5'));
    // The control plane's calls by their mark, or by their connection's when the split tunnel
    // sent them directly (marking their packets for routing).
    expect(control).toHaveLength(2);
    expect(control[0]).toContain(mark('{"meta":{"key":"mark"}}', CONTROL_FWMARK));
    expect(control[1]).toContain(mark('{"ct":{"key":"mark"}}', CONTROL_FWMARK));
    // The probes by the mark they go around the tunnel with, the tunnel sockets'.
    const probes = out.filter((r) => r.includes('51884'));
    expect(probes).toHaveLength(1);
    expect(probes[0]).toContain(mark('{"meta":{"key":"mark"}}', FERRY_FWMARK));
    // The control plane's mark routes nothing by itself: it is neither the tunnel's nor the split's.
    expect(new Set([CONTROL_FWMARK, FERRY_FWMARK, SPLIT_FWMARK]).size).toBe(3);
  });

  it('lets DHCP out only by the LAN’s links, to broadcast or the link’s own subnet', () => {
    const out = rules(protectionTable(BLOCKING), 'guard_out').map(text);
    const dhcp = out.filter((r) => /"right":(67|547)\}/.test(r));
    expect(dhcp).toEqual([
      JSON.stringify([
        { match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'eth0' } },
        { match: { op: '==', left: { payload: { protocol: 'udp', field: 'sport' } }, right: 68 } },
        { match: { op: '==', left: { payload: { protocol: 'udp', field: 'dport' } }, right: 67 } },
        {
          match: {
            op: '==',
            left: { payload: { protocol: 'ip', field: 'daddr' } },
            right: { set: ['255.255.255.255', { prefix: { addr: '192.168.1.0', len: 24 } }] },
          },
        },
        { accept: null },
      ]),
      JSON.stringify([
        { match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'eth0' } },
        { match: { op: '==', left: { payload: { protocol: 'udp', field: 'sport' } }, right: 546 } },
        { match: { op: '==', left: { payload: { protocol: 'udp', field: 'dport' } }, right: 547 } },
        {
          match: {
            op: '==',
            left: { payload: { protocol: 'ip6', field: 'daddr' } },
            right: { set: ['ff02::1:2', { prefix: { addr: 'fe80::', len: 10 } }] },
          },
        },
        { accept: null },
      ]),
    ]);
    // No link, no DHCP; a link name that could read as something else is a bug.
    const none = rules(protectionTable({ ...BLOCKING, dhcpLinks: [] }), 'guard_out').map(text);
    expect(none.filter((r) => /"right":(67|547)\}/.test(r))).toEqual([]);
    expect(() =>
      protectionTable({ ...BLOCKING, dhcpLinks: [{ name: 'eth0" accept', v4: [] }] }),
    ).toThrow(TypeError);
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
    // From the LAN only its answers: a container's subnet is a link of this host, so in the LAN
    // set, and its own flows begun before the kill switch are "established" too.
    for (const r of open.filter((x) => x.includes('"saddr"') && x.includes('"established"')))
      expect(r).toContain(
        '{"match":{"op":"==","left":{"ct":{"key":"direction"}},"right":"reply"}}',
      );
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
    const route = rules(body, 'split_route').map(text);
    const mark = route.find((r) => r.includes('"@split_route4"') && r.includes('"right":0}'))!;
    expect(mark).toContain('"@split_route4"');
    expect(mark).toContain(`"value":${SPLIT_FWMARK}`);
    expect(text(rules(body, 'split_nat')[0]!)).toContain('masquerade');
    // The kill switch lets the marked packets out, but not to the private ranges (allow_lan).
    const allow = rules(body, 'guard_out').find((r) => text(r).includes('@split_private4'))!;
    expect(text(allow)).toContain(`"right":${SPLIT_FWMARK}`);
    expect(text(allow)).toContain('"op":"!="');
    // The engine's control-plane sockets are routed by the split as any socket is (their mark
    // routes nothing), and their connection keeps saying whose it is.
    const engine = route.find((r) => r.includes(`"right":${CONTROL_FWMARK}`))!;
    expect(engine).toContain(`"right":${CONTROL_FWMARK}`);
    expect(engine).toContain('"@split_route4"');
    expect(engine).toContain(`{"mangle":{"key":{"meta":{"key":"mark"}},"value":${SPLIT_FWMARK}}}`);
    expect(engine).toContain(`{"mangle":{"key":{"ct":{"key":"mark"}},"value":${CONTROL_FWMARK}}}`);
    // Replies of both kinds of direct connection get the split's mark back.
    expect(text(rules(body, 'split_restore')[0]!)).toContain(
      `"right":{"set":[${SPLIT_FWMARK},${CONTROL_FWMARK},${RESOLVER_FWMARK},${RULE_DIRECT_CT_MARK}]}`,
    );
  });

  it('steers by the split rules before the country, also with the split by country off', () => {
    const body = protectionTable({ ...BLOCKING, rules: 3 });
    expect(chains(body)).toEqual([
      'split_route',
      'split_restore',
      'split_nat',
      'guard_out',
      'guard_forward',
    ]);
    // The rules' sets take addresses with a timeout each; their version names them.
    for (const name of [RULE_SETS.tunnel, RULE_SETS.direct])
      expect(setNamed(body, name)).toMatchObject({ flags: ['timeout'], comment: 'split rules v3' });
    expect(setNamed(body, 'split_route4')?.elem).toBeUndefined();
    const route = rules(body, 'split_route').map(text);
    const at = (needle: string) => route.findIndex((r) => r.includes(needle));
    // A tunnel rule's connection is marked and left alone from then on; a direct rule's is split
    // for as long as it lasts; both before the country's set.
    expect(route[at(`"@${RULE_SETS.tunnel}"`)]).toContain(`"value":${RULE_TUNNEL_CT_MARK}`);
    expect(at(`"right":${RULE_TUNNEL_CT_MARK}}},{"return":null}`)).toBeLessThan(
      at(`"@${RULE_SETS.tunnel}"`),
    );
    expect(route[at(`"@${RULE_SETS.direct}"`)]).toContain(`"value":${SPLIT_FWMARK}`);
    expect(route[at(`"right":${RULE_DIRECT_CT_MARK}}}`)]).toContain(`"value":${SPLIT_FWMARK}`);
    expect(at(`"@${RULE_SETS.direct}"`)).toBeLessThan(at('"@split_route4"'));
    // Direct packets leave by the kill switch's split accept, never to the private ranges.
    expect(setNamed(body, 'split_private4')?.elem?.length).toBeGreaterThan(0);
    expect(rules(body, 'guard_out').some((r) => text(r).includes('@split_private4'))).toBe(true);
    // Without a tunnel (no rules version) nothing steers.
    expect(chains(protectionTable({ ...BLOCKING, rules: null }))).toEqual([
      'guard_out',
      'guard_forward',
    ]);
  });

  it('lets the engine\u2019s resolver ask the home resolver, and nothing else ask it', () => {
    const body = protectionTable({ ...BLOCKING, rules: 0, homeDns: ['192.168.1.1'] });
    expect(setNamed(body, 'home_dns4')?.elem).toEqual(['192.168.1.1']);
    const out = rules(body, 'guard_out').map(text);
    const home = out.findIndex((r) => r.includes('@home_dns4'));
    expect(out[home]).toContain(`"right":${RESOLVER_FWMARK}`);
    expect(out[home]).toContain('"right":53');
    // Before the rule that drops DNS to any other resolver.
    const dnsDrop = out.findIndex((r) => r.includes('@dns4') && r.includes('drop'));
    expect(home).toBeLessThan(dnsDrop);
    // Its answers come back by its connection's mark.
    const resolver = rules(body, 'split_route')
      .map(text)
      .find((r) => r.includes(`"right":${RESOLVER_FWMARK}`))!;
    expect(resolver).toContain(`"value":${RESOLVER_FWMARK}`);
    expect(() => protectionTable({ ...BLOCKING, homeDns: ['fd00::1'] })).toThrow(TypeError);
    expect(() => replaceTableCommands(PROTECTION_TABLE, body)).not.toThrow();
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
