// Multihop at an entry relay: the ports the control plane lists in the heartbeat answer
// (`forwards`) are forwarded to the other relays' tunnel ports, by the kernel (nftables DNAT
// and masquerade, a table of the relay's own, replaced whole when the list changes). The entry
// sees the client's encrypted tunnel and the exit's address, nothing inside; the exit sees the
// entry's address. Nothing about a forwarded flow is logged.
import { isIP } from 'node:net';

import type { Firewall, NftObject, NftTable } from '../../platform/os/nftables.js';
import type { NameLookup } from './control-plane-access.js';

export interface HopForward {
  port: number;
  protocol: 'udp' | 'tcp';
  to_host: string;
  to_port: number;
}

const rule = (chain: string, expr: unknown[]): NftObject => ({ rule: { chain, expr } });
const eq = (left: unknown, right: unknown) => ({ match: { op: '==', left, right } });

/** The table's whole body for `forwards` (their hosts already addresses, IPv4). */
export function hopForwardsBody(forwards: readonly HopForward[]): NftObject[] {
  const body: NftObject[] = [
    {
      chain: { name: 'prerouting', type: 'nat', hook: 'prerouting', prio: -100, policy: 'accept' },
    },
    {
      chain: { name: 'postrouting', type: 'nat', hook: 'postrouting', prio: 100, policy: 'accept' },
    },
  ];
  for (const f of forwards)
    body.push(
      rule('prerouting', [
        eq({ meta: { key: 'nfproto' } }, 'ipv4'),
        eq({ meta: { key: 'l4proto' } }, f.protocol),
        eq({ payload: { protocol: f.protocol, field: 'dport' } }, f.port),
        { dnat: { family: 'ip', addr: f.to_host, port: f.to_port } },
      ]),
    );
  // What was forwarded leaves from the entry's own address: the exit never sees the client's.
  body.push(
    rule('postrouting', [
      // A flag test (the status holds other flags too), not an equality.
      { match: { op: 'in', left: { ct: { key: 'status' } }, right: 'dnat' } },
      eq({ meta: { key: 'nfproto' } }, 'ipv4'),
      { masquerade: null },
    ]),
  );
  return body;
}

export class HopForwards {
  #last = '';
  readonly #table: NftTable;

  constructor(private readonly o: { firewall: Firewall; table: string; lookup: NameLookup }) {
    this.#table = { family: 'inet', name: o.table };
  }

  /** Puts `forwards` in force (an empty list removes the table); nothing when unchanged. */
  async set(forwards: readonly HopForward[]): Promise<void> {
    const key = JSON.stringify(forwards);
    if (key === this.#last) return;
    const resolved: HopForward[] = [];
    for (const f of forwards) {
      const host =
        isIP(f.to_host) === 4
          ? f.to_host
          : (await this.o.lookup(f.to_host).catch(() => [])).find((a) => isIP(a) === 4);
      // A relay whose name does not resolve here is left out (the next answer tries again).
      if (host) resolved.push({ ...f, to_host: host });
    }
    if (resolved.length === 0) await this.o.firewall.remove(this.#table);
    else await this.o.firewall.apply(this.#table, hopForwardsBody(resolved));
    this.#last = resolved.length === forwards.length ? key : '';
  }

  async close(): Promise<void> {
    await this.o.firewall.remove(this.#table).catch(() => undefined);
    this.#last = '';
  }
}
