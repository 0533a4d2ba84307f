// The relay's nftables rules (its policy; platform/os's firewall applies them): NAT out of the uplink, what
// devices may reach (of the relay host: its resolver, ping on the gateway, the probe port and a
// control plane running beside the relay; beyond it: the internet, not the private and
// link-local ranges, nor the uplink's own subnets, unless an operator allows a network or the
// relay's control plane is there), no device-to-device traffic, and per-device rate limits for
// plans that have one. Every change is one atomic nft transaction.
import { GATEWAY_IPV4, GATEWAY_IPV6 } from '../../contracts/index.js';
import type { NftChange, NftObject, NftTable } from '../../platform/os/nftables.js';
import type { RelayOs } from '../os.js';
import {
  controlPlaneOpenings,
  hostAddresses,
  type ControlPlaneEndpoint,
  type ControlPlaneOpenings,
} from './control-plane-access.js';
import {
  BLOCKED_IPV4,
  BLOCKED_IPV6,
  disjoint,
  subnetsOf,
  type InterfaceAddress,
} from './networks.js';

export interface FirewallOptions {
  /** nft table name; unique per relay on a machine. */
  table: string;
  uplink: string;
  ipv4Cidr: string;
  ipv6Cidr: string;
  /** The probe responder's UDP port, which devices may reach through their tunnels; null: none. */
  probePort: number | null;
  /**
   * Where the relay's control plane is (resolveControlPlane): devices are its clients and reach
   * it through their tunnels, so its port is opened to them where these rules would close it,
   * on this host or in a closed range (controlPlaneOpenings); null: not known, nothing opened.
   */
  controlPlane: Pick<ControlPlaneEndpoint, 'port' | 'addresses'> | null;
  /**
   * Networks devices may reach although they are private or on the uplink's subnets (canonical
   * CIDR, see parseAllowedNetwork): e.g. the cloud network the relay lives in.
   */
  allowedNetworks: readonly string[];
}

const FAMILY = 'inet';
/** Set elements per nft transaction: large snapshots go in several. */
const ADDRESSES_PER_TRANSACTION = 10_000;

function cidr(c: string) {
  const [addr, len] = c.split('/');
  return { prefix: { addr, len: Number(len) } };
}

const meta = (key: string, right: string) => ({
  match: { op: '==', left: { meta: { key } }, right },
});
const payload = (protocol: 'ip' | 'ip6', field: 'saddr' | 'daddr') => ({
  payload: { protocol, field },
});
const is = (protocol: string, field: string, right: unknown, op = '==') => ({
  match: { op, left: { payload: { protocol, field } }, right },
});

/** TCP to `port` of `address`. */
const toPort = (address: string, port: number) => [
  is(address.includes(':') ? 'ip6' : 'ip', 'daddr', address),
  is('tcp', 'dport', port),
];

/** The subnets of the uplink's addresses as the system has them now. */
async function uplinkSubnets(links: RelayOs['links'], uplink: string): Promise<string[]> {
  const link = await links.get(uplink);
  if (!link) throw new Error(`the uplink ${uplink} does not exist`);
  return subnetsOf(
    link.addresses.map((a): InterfaceAddress => {
      const [local, len] = a.split('/') as [string, string];
      return { family: local.includes(':') ? 'inet6' : 'inet', local, prefixlen: Number(len) };
    }),
  );
}

export class RelayFirewall {
  /** Rate tiers (Mbit/s) whose sets and rules exist. */
  private readonly tiers = new Set<number>();
  /** Which tier each limited address is in. */
  private readonly limited = new Map<string, number>();
  private readonly table: NftTable;

  private constructor(
    private readonly o: FirewallOptions,
    private readonly os: Pick<RelayOs, 'firewall'>,
    /** What of the control plane devices reach through the relay; null: nothing. */
    readonly controlPlane: ControlPlaneOpenings | null,
  ) {
    this.table = { family: FAMILY, name: o.table };
  }

  static async create(
    os: Pick<RelayOs, 'firewall' | 'links' | 'sysctl'>,
    o: FirewallOptions,
  ): Promise<RelayFirewall> {
    // Read before anything is changed: an uplink that cannot be read stops the relay here.
    const closed = [...BLOCKED_IPV4, ...BLOCKED_IPV6, ...(await uplinkSubnets(os.links, o.uplink))];
    const blocked = disjoint(closed);
    const allowed = disjoint(o.allowedNetworks);
    await os.sysctl.set('net.ipv4.ip_forward', '1');
    await os.sysctl.set('net.ipv6.conf.all.forwarding', '1');
    const fw = new RelayFirewall(
      o,
      os,
      o.controlPlane && controlPlaneOpenings(o.controlPlane, hostAddresses(), closed),
    );
    // The whole table in one transaction: one left by a relay that was killed is replaced.
    await os.firewall.apply(fw.table, [
      // The relay's WireGuard interfaces (one per shard), added as they start.
      { set: { name: 'tunnels', type: 'ifname' } },
      { chain: { name: 'forward', type: 'filter', hook: 'forward', prio: 0, policy: 'accept' } },
      {
        chain: {
          name: 'postrouting',
          type: 'nat',
          hook: 'postrouting',
          prio: 100,
          policy: 'accept',
        },
      },
      // Devices never reach each other through the relay.
      {
        rule: {
          chain: 'forward',
          expr: [meta('iifname', '@tunnels'), meta('oifname', '@tunnels'), { drop: null }],
        },
      },
      ...fw.destinationObjects(blocked, allowed),
      ...fw.inputObjects(),
      ...(['ip', 'ip6'] as const).map((protocol) => ({
        rule: {
          chain: 'postrouting',
          expr: [
            meta('oifname', o.uplink),
            {
              match: {
                op: '==',
                left: payload(protocol, 'saddr'),
                right: cidr(protocol === 'ip' ? o.ipv4Cidr : o.ipv6Cidr),
              },
            },
            { masquerade: null },
          ],
        },
      })),
    ]);
    return fw;
  }

  /**
   * Beyond the relay devices reach the internet only: not the private, link-local and other
   * non-global ranges, nor the neighbours on the uplink's subnets (where a cloud's metadata
   * service and the provider's other machines are), through NAT or otherwise; the networks
   * an operator allows are the exception, and the relay's own control plane's port where it is
   * in one of those (a neighbour, the cloud network): packets to a closed destination go to the
   * chain `closed`, which lets those through (on to the rest of forward) and drops the others.
   */
  private destinationObjects(
    blocked: { v4: string[]; v6: string[] },
    allowed: { v4: string[]; v6: string[] },
  ): NftObject[] {
    const out: NftObject[] = [{ chain: { name: 'closed' } }];
    const control = this.controlPlane;
    if (control)
      for (const address of control.beyond)
        out.push({
          rule: { chain: 'closed', expr: [...toPort(address, control.port), { return: null }] },
        });
    out.push({ rule: { chain: 'closed', expr: [{ drop: null }] } });
    for (const [protocol, type, v] of [
      ['ip', 'ipv4_addr', 'v4'],
      ['ip6', 'ipv6_addr', 'v6'],
    ] as const) {
      for (const [name, cidrs] of [
        [`blocked_${v}`, blocked[v]],
        [`allowed_${v}`, allowed[v]],
      ] as const) {
        out.push({ set: { name, type, flags: ['interval'] } });
        if (cidrs.length > 0) out.push({ element: { name, elem: cidrs.map((c) => cidr(c)) } });
      }
      out.push({
        rule: {
          chain: 'forward',
          expr: [
            meta('iifname', '@tunnels'),
            is(protocol, 'daddr', `@blocked_${v}`),
            is(protocol, 'daddr', `@allowed_${v}`, '!='),
            { jump: { target: 'closed' } },
          ],
        },
      });
    }
    return out;
  }

  /**
   * Of the relay host itself, devices reach only what they need: its resolver and ping (the
   * engine's tunnel probe) on the gateway address, the latency probe port, and a control plane
   * that runs on the host (its port on the address its URL names; on any address when the
   * relay reaches it on loopback). Everything else the host listens on, on any of its
   * addresses, is closed to them; what the relay itself started (its echoes to devices) comes
   * back as established.
   */
  private inputObjects(): NftObject[] {
    const fromTunnels = (expr: unknown[]): NftObject => ({ rule: { chain: 'from_tunnels', expr } });
    const accept = { accept: null };
    const out: NftObject[] = [
      { chain: { name: 'from_tunnels' } },
      { chain: { name: 'input', type: 'filter', hook: 'input', prio: 0, policy: 'accept' } },
      {
        rule: {
          chain: 'input',
          expr: [meta('iifname', '@tunnels'), { jump: { target: 'from_tunnels' } }],
        },
      },
      fromTunnels([
        {
          match: {
            op: 'in',
            left: { ct: { key: 'state' } },
            right: ['established', 'related'],
          },
        },
        accept,
      ]),
    ];
    for (const [protocol, gateway, icmp] of [
      ['ip', GATEWAY_IPV4, 'icmp'],
      ['ip6', GATEWAY_IPV6, 'icmpv6'],
    ] as const) {
      for (const l4 of ['udp', 'tcp'])
        out.push(fromTunnels([is(protocol, 'daddr', gateway), is(l4, 'dport', 53), accept]));
      out.push(
        fromTunnels([is(protocol, 'daddr', gateway), is(icmp, 'type', 'echo-request'), accept]),
      );
    }
    // On any of the host's addresses: a device probes its node's public address.
    if (this.o.probePort !== null)
      out.push(fromTunnels([is('udp', 'dport', this.o.probePort), accept]));
    const control = this.controlPlane;
    if (control?.onHost === 'any')
      out.push(fromTunnels([is('tcp', 'dport', control.port), accept]));
    else if (control)
      for (const address of control.onHost)
        out.push(fromTunnels([...toPort(address, control.port), accept]));
    out.push(fromTunnels([{ drop: null }]));
    return out;
  }

  async addTunnelInterface(name: string): Promise<void> {
    await this.patch([{ add: { element: { name: 'tunnels', elem: [name] } } }]);
  }

  /**
   * Marks connections that arrive on `iface`, and the replies of those connections, so that
   * policy routing returns the replies through the interface they came in on. Only replies carry
   * the mark: a request forwarded onwards must be routed by its destination (which may lie
   * inside the tunnel block, e.g. a cloud VPC), never back into the tunnel it came from.
   */
  async markConnections(iface: string, mark: number): Promise<void> {
    const ctMark = { ct: { key: 'mark' } };
    await this.patch([
      {
        add: {
          chain: {
            name: 'prerouting',
            type: 'filter',
            hook: 'prerouting',
            prio: -150,
            policy: 'accept',
          },
        },
      },
      {
        add: {
          rule: {
            chain: 'prerouting',
            expr: [meta('iifname', iface), { mangle: { key: ctMark, value: mark } }],
          },
        },
      },
      { add: { rule: { chain: 'prerouting', expr: markRepliesExpr(mark) } } },
    ]);
  }

  /**
   * Puts `addresses` under a `mbps` limit (null: none), moving them between tiers as needed,
   * in transactions of a bounded size.
   */
  async setLimit(addresses: readonly string[], mbps: number | null): Promise<void> {
    if (mbps !== null && !this.tiers.has(mbps)) {
      await this.patch(this.tierObjects(mbps).map((o) => ({ add: o })));
      this.tiers.add(mbps);
    }
    for (let i = 0; i < addresses.length; i += ADDRESSES_PER_TRANSACTION) {
      const chunk = addresses.slice(i, i + ADDRESSES_PER_TRANSACTION);
      const changes: NftChange[] = [];
      for (const address of chunk) {
        const current = this.limited.get(address);
        if (current === (mbps ?? undefined)) continue;
        if (current !== undefined) changes.push({ delete: this.element(current, address) });
        if (mbps !== null) changes.push({ add: this.element(mbps, address) });
      }
      if (changes.length === 0) continue;
      await this.patch(changes);
      for (const address of chunk) {
        if (mbps === null) this.limited.delete(address);
        else this.limited.set(address, mbps);
      }
    }
  }

  async close(): Promise<void> {
    await this.os.firewall.remove(this.table).catch(() => undefined);
  }

  private element(mbps: number, address: string): NftObject {
    return {
      element: {
        name: `${address.includes(':') ? 'limited6' : 'limited4'}_${mbps}`,
        elem: [address],
      },
    };
  }

  /** A tier: the sets of its addresses, and a token bucket per address and direction. */
  private tierObjects(mbps: number): NftObject[] {
    const kbytes = Math.max(1, Math.round((mbps * 1000) / 8));
    const out: NftObject[] = [];
    for (const [protocol, type, v] of [
      ['ip', 'ipv4_addr', '4'],
      ['ip6', 'ipv6_addr', '6'],
    ] as const) {
      out.push({ set: { name: `limited${v}_${mbps}`, type } });
      for (const [dir, field, iface] of [
        ['up', 'saddr', 'iifname'],
        ['down', 'daddr', 'oifname'],
      ] as const) {
        const bucket = `${dir}${v}_${mbps}`;
        out.push({ set: { name: bucket, type, size: 65535, flags: ['timeout'], timeout: 60 } });
        out.push({
          rule: {
            chain: 'forward',
            expr: [
              meta(iface, '@tunnels'),
              {
                match: {
                  op: '==',
                  left: payload(protocol, field),
                  right: `@limited${v}_${mbps}`,
                },
              },
              {
                set: {
                  op: 'update',
                  elem: payload(protocol, field),
                  set: `@${bucket}`,
                  stmt: [
                    {
                      limit: {
                        rate: kbytes,
                        burst: Math.max(64, Math.round(kbytes / 4)),
                        per: 'second',
                        inv: true,
                        rate_unit: 'kbytes',
                        burst_unit: 'kbytes',
                      },
                    },
                  ],
                },
              },
              { counter: null },
              { drop: null },
            ],
          },
        });
      }
    }
    return out;
  }

  /** One transaction of changes to the relay's table. */
  private async patch(changes: readonly NftChange[]): Promise<void> {
    await this.os.firewall.patch(this.table, changes);
  }
}

/**
 * The expressions that give a reply the mark its connection carries, so that policy routing
 * sends it back the way the connection came (the Ferry interface, the relay's own replies).
 */
export function markRepliesExpr(mark: number): unknown[] {
  return [
    { match: { op: '==', left: { ct: { key: 'direction' } }, right: 'reply' } },
    { match: { op: '==', left: { ct: { key: 'mark' } }, right: mark } },
    { mangle: { key: { meta: { key: 'mark' } }, value: mark } },
  ];
}
