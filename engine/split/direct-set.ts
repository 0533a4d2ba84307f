// The split tunnel's direct set: the destinations that leave outside the tunnel (the home
// country, the private ranges, the LAN), less those that must always take the tunnel.
import { fromCidrs, subtract, union, type FamilyIntervals } from './intervals.js';

/**
 * Never reachable through a relay abroad, so always direct: RFC 1918, carrier-grade NAT
 * (100.64/10: the ISP's side of the line), IPv4 link-local, IPv6 unique local and link-local.
 *
 * Loopback and multicast are not here, because the set only decides what a mark reroutes, and
 * neither is rerouted by one: loopback is answered from the `local` routing table, which policy
 * routing consults before any rule that reads the mark; multicast stays on the link (no home or
 * office router forwards it), and its senders (mDNS, SSDP) pick their interface per socket
 * (IP_MULTICAST_IF), not by the default route. Whether either may leave is the kill switch's
 * question.
 */
export const PRIVATE_RANGES: readonly string[] = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  'fc00::/7',
  'fe80::/10',
];

const PRIVATE = fromCidrs(PRIVATE_RANGES);

export interface DirectSetInput {
  /** The home country's ranges (GeoIp.ranges(home, family)). */
  home: FamilyIntervals;
  /** The connected subnets (CIDRs; an interface address with its prefix names its subnet). */
  lan: readonly string[];
  /**
   * Networks and addresses that take the tunnel even inside the home country, the private
   * ranges or the LAN: the tunnel's own address block (10.64.0.0/10), the DNS resolver.
   */
  alwaysTunneled: readonly string[];
}

/**
 * home ∪ private ranges ∪ LAN − alwaysTunneled, merged, per family. Pure. An entry of `lan` or
 * `alwaysTunneled` that is not a network throws TypeError: a resolver dropped from
 * alwaysTunneled would send DNS around the tunnel, so this fails closed rather than skip it.
 */
export function directSet(input: DirectSetInput): FamilyIntervals {
  const lan = fromCidrs(input.lan);
  const tunneled = fromCidrs(input.alwaysTunneled);
  return {
    v4: subtract(union(union(input.home.v4, PRIVATE.v4), lan.v4), tunneled.v4),
    v6: subtract(union(union(input.home.v6, PRIVATE.v6), lan.v6), tunneled.v6),
  };
}
