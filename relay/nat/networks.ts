// The networks a device never reaches through its relay (private, link-local and other
// non-global ranges, and the uplink's own subnets) and those an operator allows on purpose
// (`--allow-network`): parsed, made canonical, and reduced to disjoint prefixes for nftables'
// interval sets, which refuse overlapping elements.
import ipaddr from 'ipaddr.js';

/**
 * IPv4 destinations that are not the internet: this network, RFC 1918, carrier-grade NAT (a
 * provider's own side), loopback, link-local (cloud metadata services live there), the IETF
 * protocol assignments, multicast, and the reserved block with the broadcast address.
 */
export const BLOCKED_IPV4: readonly string[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/**
 * IPv6 destinations that are not the internet: unspecified, loopback, IPv4-mapped, discard-only,
 * unique local, link-local, the old site-local, and multicast; and the prefixes that embed an
 * IPv4 address, NAT64's (well-known and local-use) and 6to4's, which a translator or relay on a
 * dual-stack cloud turns into IPv4 packets to the private address inside (the VPC, the metadata
 * service). Devices have IPv4 of their own through the relay: they need none of these.
 */
export const BLOCKED_IPV6: readonly string[] = [
  '::/128',
  '::1/128',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Ranges an operator cannot open to devices: they never leave the relay, or are not unicast. */
const NEVER_ALLOWED = new Set([
  'unspecified',
  'loopback',
  'linkLocal',
  'multicast',
  'broadcast',
  'ipv4Mapped',
]);

function parseAddress(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text))
    return ipaddr.IPv6.parse(text);
  return undefined;
}

function networkOf(address: Address, bits: number): Address {
  return address.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
}

/**
 * A network an operator allows devices to reach through the relay (e.g. the cloud network the
 * relay lives in), as typed: canonical CIDR (`10.120.0.0/16`; an address alone is one host).
 * Throws a RangeError that says what is wrong: not a network, host bits set, every address,
 * or a range that never leaves the relay (link-local, where cloud metadata services answer, is
 * never opened).
 */
export function parseAllowedNetwork(input: string): string {
  const parts = input.trim().split('/');
  const address = parts.length <= 2 && parts[0] ? parseAddress(parts[0]) : undefined;
  if (!address) throw new RangeError('not an IPv4 or IPv6 network (e.g. 10.120.0.0/16)');
  const max = address.kind() === 'ipv4' ? 32 : 128;
  let bits = max;
  if (parts[1] !== undefined) {
    if (!/^\d{1,3}$/.test(parts[1]) || Number(parts[1]) > max)
      throw new RangeError(`the prefix length is a number from 1 to ${max}`);
    bits = Number(parts[1]);
  }
  if (bits === 0)
    throw new RangeError('it allows every address (/0): name the networks devices may reach');
  const network = networkOf(address, bits);
  if (network.toString() !== address.toString())
    throw new RangeError(
      `it has host bits set: give the network's own address (${network.toString()}/${bits})`,
    );
  const range = network.range();
  if (NEVER_ALLOWED.has(range))
    throw new RangeError(`it is in the ${range} range, which devices never reach through a relay`);
  return `${network.toString()}/${bits}`;
}

/** An interface's address as `ip -j address show` lists it. */
export interface InterfaceAddress {
  family: string;
  local: string;
  prefixlen: number;
}

/** The subnets (canonical CIDR) an interface's addresses are on. */
export function subnetsOf(addresses: readonly InterfaceAddress[]): string[] {
  const out: string[] = [];
  for (const a of addresses) {
    if (a.family !== 'inet' && a.family !== 'inet6') continue;
    const address = parseAddress(a.local);
    if (!address) continue;
    out.push(`${networkOf(address, a.prefixlen).toString()}/${a.prefixlen}`);
  }
  return out;
}

/**
 * The networks by family, each once, without one that lies inside another of the list (CIDR
 * prefixes are nested or disjoint, so what is left is disjoint).
 */
export function disjoint(cidrs: readonly string[]): { v4: string[]; v6: string[] } {
  const parsed = [...new Set(cidrs)].map((c) => ({ c, r: ipaddr.parseCIDR(c) }));
  const kept = parsed.filter(
    ({ c, r }) =>
      !parsed.some(
        (o) =>
          o.c !== c &&
          o.r[0].kind() === r[0].kind() &&
          o.r[1] <= r[1] &&
          r[0].match(o.r as [(typeof r)[0], number]),
      ),
  );
  return {
    v4: kept.filter(({ r }) => r[0].kind() === 'ipv4').map(({ c }) => c),
    v6: kept.filter(({ r }) => r[0].kind() === 'ipv6').map(({ c }) => c),
  };
}
