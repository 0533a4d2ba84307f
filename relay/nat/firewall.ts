// The relay's nftables rules, as JSON through `nft -j -f -`: NAT out of the uplink, no
// device-to-device traffic, and per-device rate limits for plans that have one. Every change
// is one atomic nft transaction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../system.js';

export interface FirewallOptions {
  /** nft table name; unique per relay on a machine. */
  table: string;
  uplink: string;
  ipv4Cidr: string;
  ipv6Cidr: string;
}

type NftCommand = Record<string, unknown>;

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

export class Firewall {
  /** Rate tiers (Mbit/s) whose sets and rules exist. */
  private readonly tiers = new Set<number>();
  /** Which tier each limited address is in. */
  private readonly limited = new Map<string, number>();

  private constructor(private readonly o: FirewallOptions) {}

  static async create(o: FirewallOptions): Promise<Firewall> {
    await run('sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
    await run('sysctl', ['-qw', 'net.ipv6.conf.all.forwarding=1']);
    const fw = new Firewall(o);
    // A table left by a relay that was killed is replaced, not merged.
    await run('nft', ['delete', 'table', FAMILY, o.table], { allowFailure: true });
    const t = { family: FAMILY, table: o.table };
    await fw.apply([
      { add: { table: { family: FAMILY, name: o.table } } },
      // The relay's WireGuard interfaces (one per shard), added as they start.
      { add: { set: { ...t, name: 'tunnels', type: 'ifname' } } },
      {
        add: {
          chain: {
            ...t,
            name: 'forward',
            type: 'filter',
            hook: 'forward',
            prio: 0,
            policy: 'accept',
          },
        },
      },
      {
        add: {
          chain: {
            ...t,
            name: 'postrouting',
            type: 'nat',
            hook: 'postrouting',
            prio: 100,
            policy: 'accept',
          },
        },
      },
      // Devices never reach each other through the relay.
      {
        add: {
          rule: {
            ...t,
            chain: 'forward',
            expr: [meta('iifname', '@tunnels'), meta('oifname', '@tunnels'), { drop: null }],
          },
        },
      },
      ...(['ip', 'ip6'] as const).map((protocol) => ({
        add: {
          rule: {
            ...t,
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
        },
      })),
    ]);
    return fw;
  }

  async addTunnelInterface(name: string): Promise<void> {
    await this.apply([
      { add: { element: { family: FAMILY, table: this.o.table, name: 'tunnels', elem: [name] } } },
    ]);
  }

  /**
   * Marks connections that arrive on `iface`, and the replies of those connections, so that
   * policy routing returns the replies through the interface they came in on. Only replies carry
   * the mark: a request forwarded onwards must be routed by its destination (which may lie
   * inside the tunnel block, e.g. a cloud VPC), never back into the tunnel it came from.
   */
  async markConnections(iface: string, mark: number): Promise<void> {
    const t = { family: FAMILY, table: this.o.table };
    const ctMark = { ct: { key: 'mark' } };
    await this.apply([
      {
        add: {
          chain: {
            ...t,
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
            ...t,
            chain: 'prerouting',
            expr: [meta('iifname', iface), { mangle: { key: ctMark, value: mark } }],
          },
        },
      },
      {
        add: {
          rule: {
            ...t,
            chain: 'prerouting',
            expr: [
              { match: { op: '==', left: { ct: { key: 'direction' } }, right: 'reply' } },
              { match: { op: '==', left: ctMark, right: mark } },
              { mangle: { key: { meta: { key: 'mark' } }, value: mark } },
            ],
          },
        },
      },
    ]);
  }

  /**
   * Puts `addresses` under a `mbps` limit (null: none), moving them between tiers as needed,
   * in transactions of a bounded size.
   */
  async setLimit(addresses: readonly string[], mbps: number | null): Promise<void> {
    if (mbps !== null && !this.tiers.has(mbps)) {
      await this.apply(this.tierCommands(mbps));
      this.tiers.add(mbps);
    }
    for (let i = 0; i < addresses.length; i += ADDRESSES_PER_TRANSACTION) {
      const chunk = addresses.slice(i, i + ADDRESSES_PER_TRANSACTION);
      const commands: NftCommand[] = [];
      for (const address of chunk) {
        const current = this.limited.get(address);
        if (current === (mbps ?? undefined)) continue;
        if (current !== undefined)
          commands.push({ delete: { element: this.element(current, address) } });
        if (mbps !== null) commands.push({ add: { element: this.element(mbps, address) } });
      }
      if (commands.length === 0) continue;
      await this.apply(commands);
      for (const address of chunk) {
        if (mbps === null) this.limited.delete(address);
        else this.limited.set(address, mbps);
      }
    }
  }

  async close(): Promise<void> {
    await run('nft', ['delete', 'table', FAMILY, this.o.table], { allowFailure: true });
  }

  private element(mbps: number, address: string) {
    return {
      family: FAMILY,
      table: this.o.table,
      name: `${address.includes(':') ? 'limited6' : 'limited4'}_${mbps}`,
      elem: [address],
    };
  }

  /** A tier: the sets of its addresses, and a token bucket per address and direction. */
  private tierCommands(mbps: number): NftCommand[] {
    const t = { family: FAMILY, table: this.o.table };
    const kbytes = Math.max(1, Math.round((mbps * 1000) / 8));
    const out: NftCommand[] = [];
    for (const [protocol, type, v] of [
      ['ip', 'ipv4_addr', '4'],
      ['ip6', 'ipv6_addr', '6'],
    ] as const) {
      out.push({ add: { set: { ...t, name: `limited${v}_${mbps}`, type } } });
      for (const [dir, field, iface] of [
        ['up', 'saddr', 'iifname'],
        ['down', 'daddr', 'oifname'],
      ] as const) {
        const bucket = `${dir}${v}_${mbps}`;
        out.push({
          add: { set: { ...t, name: bucket, type, size: 65535, flags: ['timeout'], timeout: 60 } },
        });
        out.push({
          add: {
            rule: {
              ...t,
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
          },
        });
      }
    }
    return out;
  }

  /**
   * One transaction. nft cannot read a socket as stdin (Node's pipes are sockets), so the batch
   * goes through a private temp file.
   */
  private async apply(commands: NftCommand[]): Promise<void> {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-nft-'));
    const file = path.join(dir, 'batch.json');
    try {
      writeFileSync(file, JSON.stringify({ nftables: commands }), { mode: 0o600 });
      await run('nft', ['-j', '-f', file]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
