// The LAN as the kill switch lets it out (allow_lan): the private, link-local and ULA parts of
// the subnets of this host's own links, with link-local, multicast and broadcast, as CIDRs (they
// may overlap: merged before nft sees them).
import ipaddr from 'ipaddr.js';

import type { LinkInfo } from '../../platform/os/links.js';
import { isTunnelInterfaceName } from '../tunnel/names.js';
import { prefixElements } from '../split/nft-elements.js';
import type { DhcpLink, FamilySets } from './firewall-policy.js';

export interface LanCidrs {
  v4: string[];
  v6: string[];
}

/**
 * Where a LAN may be: RFC 1918, link-local and unique local addresses. A link's subnet counts
 * only inside these: a network hands out whatever prefix it likes (a rogue DHCP lease of a /15
 * holds foreign addresses: TunnelCrack's LocalNet), and a public address is never the LAN's to
 * claim. The full tunnel's routing lets the same ranges follow the system's own routes.
 */
export const LAN_RANGES: LanCidrs = {
  v4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'],
  v6: ['fc00::/7', 'fe80::/10'],
};

/** Always part of the LAN: what never leaves the link (or the local segment). */
const LINK_SCOPE: LanCidrs = {
  v4: ['169.254.0.0/16', '224.0.0.0/4', '255.255.255.255/32'],
  v6: ['fe80::/10', 'ff00::/8'],
};

/**
 * The parts of a subnet inside LAN_RANGES. Two prefixes either nest or are disjoint: the part is
 * the subnet itself (inside a range), the range (inside the subnet), or nothing.
 */
function lanParts(network: string, len: number, ranges: readonly string[]): string[] {
  const subnet = ipaddr.parse(network);
  return ranges.flatMap((r) => {
    const [range, rangeLen] = ipaddr.parseCIDR(r);
    if (range.kind() !== subnet.kind()) return [];
    if (len >= rangeLen && subnet.match(range, rangeLen)) return [`${network}/${len}`];
    if (rangeLen > len && range.match(subnet, len)) return [r];
    return [];
  });
}

/**
 * The LAN parts (see LAN_RANGES) of the subnets of every link but loopback and the engine's
 * tunnels (a /32 or /128 address, as a tunnel's or a point-to-point link's, names no subnet and
 * is left out).
 */
export function lanCidrs(links: readonly LinkInfo[]): LanCidrs {
  const v4 = [...LINK_SCOPE.v4];
  const v6 = [...LINK_SCOPE.v6];
  for (const link of links) {
    if (link.name === 'lo' || isTunnelInterfaceName(link.name)) continue;
    for (const a of link.addresses) {
      let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
      try {
        parsed = ipaddr.parseCIDR(a);
      } catch {
        continue;
      }
      const [address, len] = parsed;
      if (address.kind() === 'ipv4' && len < 32) {
        const network = ipaddr.IPv4.networkAddressFromCIDR(a).toString();
        v4.push(...lanParts(network, len, LAN_RANGES.v4));
      } else if (address.kind() === 'ipv6' && len < 128 && address.range() !== 'linkLocal') {
        const network = ipaddr.IPv6.networkAddressFromCIDR(a).toString();
        v6.push(...lanParts(network, len, LAN_RANGES.v6));
      }
    }
  }
  return { v4, v6 };
}

/** A name nft is given as it is (os/arguments' check): a link of another name gets no DHCP rule. */
const USABLE_NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,14}$/;

/**
 * The links DHCP may leave by (every link but loopback and the engine's tunnels), with their
 * IPv4 subnets, where their DHCP servers are.
 */
export function dhcpLinks(links: readonly LinkInfo[]): DhcpLink[] {
  return links
    .filter((l) => l.name !== 'lo' && !isTunnelInterfaceName(l.name) && USABLE_NAME.test(l.name))
    .map((l) => ({
      name: l.name,
      v4: l.addresses.flatMap((a) => {
        try {
          const [address, len] = ipaddr.parseCIDR(a);
          if (address.kind() !== 'ipv4' || len >= 32) return [];
          return [`${ipaddr.IPv4.networkAddressFromCIDR(a).toString()}/${len}`];
        } catch {
          return [];
        }
      }),
    }));
}

/** The LAN's CIDRs as the protection table's sets. */
export function lanElements(lan: LanCidrs): FamilySets {
  return { v4: prefixElements(lan.v4), v6: prefixElements(lan.v6) };
}
