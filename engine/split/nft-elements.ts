// Address sets in nftables' forms: the elements of an interval set (`nft -j`'s JSON) and a named
// interval set holding a set, for the firewall's table.
import ipaddr from 'ipaddr.js';

import type { NftObject } from '../../platform/os/nftables.js';
import type { Address } from './address-space.js';
import { spaceOfSet, type IntervalSet } from './intervals.js';

/** One element of an nftables interval set in `nft -j`'s JSON. */
export type NftSetElement =
  string | { prefix: { addr: string; len: number } } | { range: [string, string] };

/**
 * The set as the elements of an nftables `interval` set: a bare address for one address, a
 * prefix when a range is exactly one block, else a range; one element per range, which is what
 * nft stores either way (a range costs the kernel no more than a prefix).
 */
export function toNftElements(set: IntervalSet<Address>): NftSetElement[] {
  const space = spaceOfSet(set);
  const b = set.bounds;
  const out: NftSetElement[] = new Array<NftSetElement>(b.length >> 1);
  for (let i = 0; i < b.length; i += 2) {
    const start = b[i]!;
    const end = b[i + 1]!;
    if (start === end) {
      out[i >> 1] = space.format(start);
      continue;
    }
    const len = space.widestPrefix(start, end);
    out[i >> 1] =
      space.blockEnd(start, len) === end
        ? { prefix: { addr: space.format(start), len } }
        : { range: [space.format(start), space.format(end)] };
  }
  return out;
}

/**
 * A named nftables interval set holding `set`, as a table body object for the firewall. nft
 * refuses an empty `elem` list, so an empty set has none.
 */
export function nftIntervalSet(name: string, set: IntervalSet<Address>): NftObject {
  const elem = toNftElements(set);
  return {
    set: {
      name,
      type: spaceOfSet(set).nftType,
      flags: ['interval'],
      ...(elem.length > 0 ? { elem } : {}),
    },
  };
}

/**
 * CIDRs as interval-set elements nft takes in one transaction: two prefixes either nest or are
 * disjoint, so dropping every prefix inside another leaves no overlap (nft refuses overlaps).
 */
export function prefixElements(cidrs: readonly string[]): NftSetElement[] {
  const parsed = [...new Set(cidrs)].map((c) => ({ cidr: c, range: ipaddr.parseCIDR(c) }));
  const outer = parsed.filter(
    (p, i) =>
      !parsed.some(
        (q, j) =>
          j !== i &&
          q.range[0].kind() === p.range[0].kind() &&
          (q.range[1] < p.range[1] || (q.range[1] === p.range[1] && j < i)) &&
          p.range[0].match(q.range),
      ),
  );
  return outer.map(({ range: [address, len] }) => {
    const full = address.kind() === 'ipv4' ? 32 : 128;
    const network =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${len}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${len}`);
    return len === full ? network.toString() : { prefix: { addr: network.toString(), len } };
  });
}
