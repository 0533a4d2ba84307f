// The engine's nftables table (`inet ferry`) as pure data: the kill switch, the split tunnel's
// marks and the IPv6 block, worked out from what may leave this host; applied in one transaction.
import { isIP } from 'node:net';

import { checkInterfaceName } from '../../platform/os/arguments.js';
import type { NftObject, NftTable } from '../../platform/os/nftables.js';
import { PRIVATE_RANGES } from '../split/direct-set.js';
import { prefixElements, type NftSetElement } from '../split/nft-elements.js';
import { FERRY_FWMARK, TUNNEL_INTERFACE_PREFIX } from '../tunnel/names.js';

/** The one table every protection lives in (design.md: "one nftables table, `inet ferry`"). */
export const PROTECTION_TABLE: NftTable = { family: 'inet', name: 'ferry' };

/**
 * The mark the split tunnel puts on packets to the direct set: policy routing sends them to the
 * main table (around the tunnel). Beside FERRY_FWMARK (0x6665, the tunnel's own sockets).
 */
export const SPLIT_FWMARK = 0x6666;

/**
 * The mark on the engine's control-plane sockets (set by the native addon before their first
 * packet): the kill switch lets the control plane out only for it, not for any process. No
 * routing rule reads it: the calls go the way any socket's go (through the tunnel when one is
 * up, the exit check needs that; around it by the split tunnel's mark). The engine's latency
 * probes carry FERRY_FWMARK instead: they measure the path the tunnel's own packets take, around
 * the tunnel (a probe to the node in use through its own tunnel would measure nothing useful).
 */
export const CONTROL_FWMARK = 0x6667;

/**
 * The mark on the engine's resolver's sockets to the home network's resolver (set by the native
 * addon): routed around the tunnel by its own policy rule, and let out by the kill switch only
 * to those resolvers, port 53, so that no other program's DNS leaves outside the tunnel.
 */
export const RESOLVER_FWMARK = 0x6668;

/**
 * Connection marks (never on packets): a connection begun to a `tunnel` rule's address stays in
 * the tunnel, one begun to a `direct` rule's address stays out of it, whatever becomes of the
 * rules' sets (their addresses expire with their TTL) while it lasts.
 */
export const RULE_TUNNEL_CT_MARK = 0x6669;
export const RULE_DIRECT_CT_MARK = 0x666a;

/** The split rules' sets: addresses the engine's resolver gave for a rule's names, each with its TTL. */
export const RULE_SETS = { tunnel: 'rules_tunnel4', direct: 'rules_direct4' } as const;

/** Every tunnel interface of the engine (main and service tunnels): nft's wildcard. */
const TUNNEL_INTERFACES = `${TUNNEL_INTERFACE_PREFIX}*`;

export interface Endpoint {
  /** An IP address (a host name is resolved before it comes here). */
  address: string;
  port: number;
  protocol: 'udp' | 'tcp';
}

export type { NftSetElement } from '../split/nft-elements.js';

/** A link of this host's that DHCP may leave by (see ProtectionPolicy.dhcpLinks). */
export interface DhcpLink {
  name: string;
  /** Its IPv4 subnets, as CIDRs (where its DHCP server is). */
  v4: readonly string[];
}

export interface FamilySets {
  v4: readonly NftSetElement[];
  v6: readonly NftSetElement[];
}

/** What may leave this host, and how the split tunnel steers what does. */
export interface ProtectionPolicy {
  /** The kill switch: drop everything that leaves outside a tunnel and is not allowed below. */
  block: boolean;
  /** Drop IPv6 that would leave outside a tunnel (the tunnels carry IPv4). */
  blockIpv6: boolean;
  /** The engine's own tunnel sockets (marked FERRY_FWMARK) may reach these, and nothing else may. */
  nodes: readonly Endpoint[];
  /** The nodes' latency probe responders (UDP): reachable while blocking by the engine's probes (FERRY_FWMARK). */
  probes: readonly Endpoint[];
  /** Reachable over TCP while blocking by the engine's sockets (CONTROL_FWMARK): sign-in, connect, the exit check. */
  controlPlane: readonly Endpoint[];
  /** The LAN (its subnets, link-local, multicast, broadcast) may be reached; null: it may not. */
  lan: FamilySets | null;
  /**
   * The host's own links (not loopback, not the tunnels) with their IPv4 subnets: DHCP leaves
   * only by them, to the limited broadcast or the link's subnet (its server), and DHCPv6 to
   * ff02::1:2 or a link-local address. None (or absent): no DHCP leaves.
   */
  dhcpLinks?: readonly DhcpLink[];
  /**
   * While blocking, DNS (53 and 853, UDP and TCP) may go only to these resolvers, whatever the
   * interface: a query to any other resolver is dropped even inside the tunnel.
   */
  dns: readonly string[];
  /**
   * Split tunneling (null: off, everything goes into the tunnel). `route`: the IPv4
   * destinations marked SPLIT_FWMARK and so routed around the tunnel (the home country and the
   * private ranges); the kill switch lets marked packets out but to `private` (the private
   * ranges and the LAN leave only when `lan` is allowed); `pinned`: addresses that take the
   * tunnel even inside `route` (stream mode's platform). IPv6 is not split.
   */
  split: {
    route: readonly NftSetElement[];
    private: readonly NftSetElement[];
    pinned?: readonly NftSetElement[];
  } | null;
  /**
   * The split rules' sets (RULE_SETS, filled by the engine's resolver as it answers) and the
   * chains that steer by them, also with the split by country off; the number is the rules'
   * version: a new one empties the sets (a rule removed takes its addresses with it). Absent
   * or null: none.
   */
  rules?: number | null;
  /**
   * The home network's resolvers (IPv4), which the engine's resolver asks (by its sockets,
   * marked RESOLVER_FWMARK) for names that are at home; nothing else may ask them while blocking.
   */
  homeDns?: readonly string[];
}

/** The private ranges (IPv4) as set elements: what a split connection may not reach without allow_lan. */
const PRIVATE_V4_ELEMENTS = prefixElements(
  PRIVATE_RANGES.filter((c) => isIP(c.split('/')[0]!) === 4),
);

const meta = (key: string) => ({ meta: { key } });
const eq = (left: unknown, right: unknown) => ({ match: { op: '==', left, right } });
const ne = (left: unknown, right: unknown) => ({ match: { op: '!=', left, right } });
const daddr = (family: 4 | 6) => ({
  payload: { protocol: family === 4 ? 'ip' : 'ip6', field: 'daddr' },
});
const saddr = (family: 4 | 6) => ({
  payload: { protocol: family === 4 ? 'ip' : 'ip6', field: 'saddr' },
});
const port = (protocol: 'udp' | 'tcp' | 'th', field: 'sport' | 'dport') => ({
  payload: { protocol, field },
});
const ACCEPT = { accept: null };
const DROP = { drop: null };
const COUNTER = { counter: null };
const DNS_PORTS = { set: [53, 853] };

function familyOf(address: string): 4 | 6 {
  const f = isIP(address);
  if (f === 0) throw new TypeError('a protection endpoint is an IP address');
  return f as 4 | 6;
}

function checkEndpoint(e: Endpoint): Endpoint {
  familyOf(e.address);
  if (!Number.isInteger(e.port) || e.port < 1 || e.port > 65535)
    throw new TypeError('a protection endpoint has a port 1..65535');
  if (e.protocol !== 'udp' && e.protocol !== 'tcp')
    throw new TypeError('a protection endpoint is udp or tcp');
  return e;
}

function set(name: string, family: 4 | 6, elements: readonly NftSetElement[], interval: boolean) {
  return {
    set: {
      name,
      type: family === 4 ? 'ipv4_addr' : 'ipv6_addr',
      ...(interval ? { flags: ['interval'] } : {}),
      ...(elements.length > 0 ? { elem: [...elements] } : {}),
    },
  };
}

/**
 * A set of addresses that come and go, each with its own timeout (the split rules'). Its comment
 * names the rules' version: a set of another version is another set, made anew and empty.
 */
function timeoutSet(name: string, version: number): NftObject {
  return {
    set: { name, type: 'ipv4_addr', flags: ['timeout'], comment: `split rules v${version}` },
  };
}

function chain(name: string, type: string, hook: string, prio: number): NftObject {
  return { chain: { name, type, hook, prio, policy: 'accept' } };
}

function rule(chainName: string, ...expr: unknown[]): NftObject {
  return { rule: { chain: chainName, expr } };
}

/**
 * The table's body for a policy. Chains and what they are for:
 * - `split_route` (route hook, output): marks new packets to the route set so that they are
 *   routed again, around the tunnel; the connection keeps the mark for its replies;
 * - `split_restore` (prerouting): gives replies their connection's mark, so that a strict
 *   reverse-path filter (with src_valid_mark) finds them on the interface they came in on;
 * - `split_nat` (postrouting): a socket that was routed into the tunnel first has the tunnel's
 *   address as its source; leaving directly, it takes the interface's own address instead;
 * - `guard_out`, `guard_forward` (filter): the kill switch and the IPv6 block.
 */
export function protectionTable(policy: ProtectionPolicy): NftObject[] {
  const nodes = policy.nodes.map(checkEndpoint);
  const control = policy.controlPlane.map(checkEndpoint);
  const probes = policy.probes.map(checkEndpoint);
  for (const a of policy.dns) familyOf(a);
  const body: NftObject[] = [];
  const dns = (f: 4 | 6) => policy.dns.filter((a) => familyOf(a) === f);

  const homeDns = policy.homeDns ?? [];
  if (homeDns.some((a) => familyOf(a) !== 4))
    throw new TypeError('the home resolvers are IPv4 addresses');
  const rulesVersion = policy.rules ?? 0;
  const steering = policy.split !== null || (policy.rules ?? null) !== null;
  if (steering) {
    const ctMark = { ct: { key: 'mark' } };
    const markSplit = { mangle: { key: meta('mark'), value: SPLIT_FWMARK } };
    body.push(
      set('split_route4', 4, policy.split?.route ?? [], true),
      set('split_private4', 4, policy.split?.private ?? PRIVATE_V4_ELEMENTS, true),
      set('split_pinned4', 4, policy.split?.pinned ?? [], true),
      timeoutSet(RULE_SETS.tunnel, rulesVersion),
      timeoutSet(RULE_SETS.direct, rulesVersion),
      chain('split_route', 'route', 'output', -150),
      // Pinned to the tunnel (stream mode's platform), wherever its addresses are.
      rule('split_route', eq(daddr(4), '@split_pinned4'), { return: null }),
      // The split rules, before the country's: a connection keeps the way its first packet took.
      rule('split_route', eq(ctMark, RULE_TUNNEL_CT_MARK), { return: null }),
      rule(
        'split_route',
        eq(meta('mark'), 0),
        eq(daddr(4), `@${RULE_SETS.tunnel}`),
        { mangle: { key: ctMark, value: RULE_TUNNEL_CT_MARK } },
        { return: null },
      ),
      rule('split_route', eq(meta('mark'), 0), eq(ctMark, RULE_DIRECT_CT_MARK), markSplit),
      rule('split_route', eq(meta('mark'), 0), eq(daddr(4), `@${RULE_SETS.direct}`), markSplit, {
        mangle: { key: ctMark, value: RULE_DIRECT_CT_MARK },
      }),
      // Only unmarked packets: the tunnel's own sockets and other software's marks keep theirs.
      rule('split_route', eq(meta('mark'), 0), eq(daddr(4), '@split_route4'), markSplit, {
        mangle: { key: ctMark, value: SPLIT_FWMARK },
      }),
      // The engine's control-plane sockets are split as any socket is; their connection keeps
      // their mark, by which the kill switch still knows them once the packet's says split.
      rule(
        'split_route',
        eq(meta('mark'), CONTROL_FWMARK),
        eq(daddr(4), '@split_route4'),
        markSplit,
        {
          mangle: { key: ctMark, value: CONTROL_FWMARK },
        },
      ),
      // The resolver's questions to the home network: its answers come back by the same way.
      rule('split_route', eq(meta('mark'), RESOLVER_FWMARK), {
        mangle: { key: ctMark, value: RESOLVER_FWMARK },
      }),
      chain('split_restore', 'filter', 'prerouting', -150),
      rule(
        'split_restore',
        eq(ctMark, { set: [SPLIT_FWMARK, CONTROL_FWMARK, RESOLVER_FWMARK, RULE_DIRECT_CT_MARK] }),
        markSplit,
      ),
      chain('split_nat', 'nat', 'postrouting', 100),
      rule(
        'split_nat',
        eq(meta('nfproto'), 'ipv4'),
        eq(meta('mark'), SPLIT_FWMARK),
        ne(meta('oifname'), TUNNEL_INTERFACES),
        { masquerade: null },
      ),
    );
  }
  if (policy.lan) {
    body.push(set('lan4', 4, policy.lan.v4, true), set('lan6', 6, policy.lan.v6, true));
  }
  if (policy.block) body.push(set('dns4', 4, dns(4), false), set('dns6', 6, dns(6), false));
  if (homeDns.length > 0) body.push(set('home_dns4', 4, homeDns, false));

  if (!policy.block && !policy.blockIpv6) return body;

  body.push(chain('guard_out', 'filter', 'output', 0));
  const out = (...expr: unknown[]) => body.push(rule('guard_out', ...expr));
  out(eq(meta('oifname'), 'lo'), ACCEPT);
  // The engine's resolver asking the home network's: by its mark, to those resolvers only.
  if (homeDns.length > 0)
    out(
      eq(meta('mark'), RESOLVER_FWMARK),
      eq(meta('l4proto'), { set: ['udp', 'tcp'] }),
      eq(port('th', 'dport'), 53),
      eq(daddr(4), '@home_dns4'),
      ACCEPT,
    );
  if (policy.block) {
    // Before the tunnels' accept: a query for another resolver is dropped inside the tunnel too.
    // A connection a `direct` rule or program began is the user's to go around the tunnel, DNS
    // included (a direct program asking a resolver of its own).
    for (const proto of ['udp', 'tcp'] as const)
      for (const family of [4, 6] as const)
        out(
          eq(meta('l4proto'), proto),
          eq(port('th', 'dport'), DNS_PORTS),
          ne(daddr(family), `@dns${family}`),
          ne({ ct: { key: 'mark' } }, RULE_DIRECT_CT_MARK),
          COUNTER,
          DROP,
        );
  }
  out(eq(meta('oifname'), TUNNEL_INTERFACES), ACCEPT);
  for (const n of nodes)
    out(
      eq(meta('mark'), FERRY_FWMARK),
      eq(daddr(familyOf(n.address)), n.address),
      eq(port(n.protocol, 'dport'), n.port),
      ACCEPT,
    );
  if (policy.block) {
    // The engine's own sockets only. Its control-plane calls by their mark, or (when the split
    // sent the connection directly, marking its packets for routing) by their connection's.
    for (const mark of [
      eq(meta('mark'), CONTROL_FWMARK),
      eq({ ct: { key: 'mark' } }, CONTROL_FWMARK),
    ])
      for (const c of control)
        out(
          mark,
          eq(daddr(familyOf(c.address)), c.address),
          eq(port('tcp', 'dport'), c.port),
          ACCEPT,
        );
    // Its latency probes by the tunnel sockets' mark, which they carry to go around the tunnel.
    for (const p of probes)
      out(
        eq(meta('mark'), FERRY_FWMARK),
        eq(daddr(familyOf(p.address)), p.address),
        eq(port(p.protocol, 'dport'), p.port),
        ACCEPT,
      );
  }
  // DHCP and DHCPv6: the lease that keeps this host on its network, by its own links only, to
  // their servers (on the link's subnet, or link-local) or by broadcast, never anywhere else.
  for (const link of policy.dhcpLinks ?? []) {
    const oif = eq(meta('oifname'), checkInterfaceName(link.name));
    const servers4 = prefixElements(['255.255.255.255/32', ...link.v4]);
    out(
      oif,
      eq(port('udp', 'sport'), 68),
      eq(port('udp', 'dport'), 67),
      eq(daddr(4), { set: servers4 }),
      ACCEPT,
    );
    out(
      oif,
      eq(port('udp', 'sport'), 546),
      eq(port('udp', 'dport'), 547),
      eq(daddr(6), { set: ['ff02::1:2', { prefix: { addr: 'fe80::', len: 10 } }] }),
      ACCEPT,
    );
  }
  if (policy.lan) {
    out(eq(daddr(4), '@lan4'), ACCEPT);
    out(eq(daddr(6), '@lan6'), ACCEPT);
  }
  // The split set's packets, marked on their way in split_route: one set of a country's ranges,
  // not two (a country is tens of thousands of them, and the mark says the same).
  if (steering) out(eq(meta('mark'), SPLIT_FWMARK), ne(daddr(4), '@split_private4'), ACCEPT);
  if (policy.block) out(COUNTER, DROP);
  else out(eq(meta('nfproto'), 'ipv6'), COUNTER, DROP);

  if (policy.block) {
    // Traffic this host routes for others (containers, VMs) leaves through a tunnel or not at all
    // (split marks only this host's own packets: others' domestic traffic takes the tunnel).
    // "Established" alone is no reason to pass: a flow that began before the kill switch is
    // established too, and would go on leaving by the default route. Only what comes back in
    // from a tunnel (or the LAN, when allowed) passes for belonging to a flow.
    body.push(chain('guard_forward', 'filter', 'forward', 0));
    const fwd = (...expr: unknown[]) => body.push(rule('guard_forward', ...expr));
    const established = eq({ ct: { key: 'state' } }, { set: ['established', 'related'] });
    fwd(eq(meta('oifname'), TUNNEL_INTERFACES), ACCEPT);
    fwd(eq(meta('iifname'), TUNNEL_INTERFACES), established, ACCEPT);
    if (policy.lan) {
      fwd(eq(daddr(4), '@lan4'), ACCEPT);
      fwd(eq(daddr(6), '@lan6'), ACCEPT);
      // Only answers from the LAN: a container's or VM's own subnet is part of the LAN too, and
      // its flows begun before the kill switch must not pass as "established from the LAN".
      const reply = eq({ ct: { key: 'direction' } }, 'reply');
      fwd(eq(saddr(4), '@lan4'), established, reply, ACCEPT);
      fwd(eq(saddr(6), '@lan6'), established, reply, ACCEPT);
    }
    fwd(COUNTER, DROP);
  }
  return body;
}
