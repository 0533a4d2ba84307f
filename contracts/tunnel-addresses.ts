// The tunnel address plan every component shares: device ranges, the node gateway, and the
// WireGuard shard (a block of 65,536 device addresses, one wireguard-go interface each).
export const TUNNEL_IPV4_CIDR = '10.64.0.0/10';
export const TUNNEL_IPV6_CIDR = 'fd66:6572:7279::/48';
/** Every node answers on the first address of each range (gateway and DNS). */
export const GATEWAY_IPV4 = '10.64.0.1';
export const GATEWAY_IPV6 = 'fd66:6572:7279::1';

/**
 * wireguard-go holds at most 65,536 peers per interface. A node therefore serves each block of
 * 65,536 device addresses on its own interface and port: block k listens on the node's
 * WireGuard port + k. Blocks follow the address offset, so the control plane and the relay agree
 * without asking each other, and routes stay one per block (10.(64+k).0.0/16).
 */
export const SHARD_SIZE = 65_536;
export const MAX_SHARDS = 64;

const IPV4_BASE = (10 << 24) | (64 << 16);

/** The offset of a tunnel IPv4 address in the device range (0 = the network address). */
export function tunnelOffset(ipv4: string): number {
  const parts = ipv4.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new RangeError(`not an IPv4 address: ${ipv4}`);
  }
  const value = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const offset = value - IPV4_BASE;
  if (offset < 0 || offset >= SHARD_SIZE * MAX_SHARDS)
    throw new RangeError(`${ipv4} is outside ${TUNNEL_IPV4_CIDR}`);
  return offset;
}

export function shardOf(ipv4: string): number {
  return Math.floor(tunnelOffset(ipv4) / SHARD_SIZE);
}

/** The IPv4 and IPv6 blocks of shard k, as routes. */
export function shardRoutes(k: number): { ipv4: string; ipv6: string } {
  return { ipv4: `10.${64 + k}.0.0/16`, ipv6: `fd66:6572:7279::${k.toString(16)}:0/112` };
}
