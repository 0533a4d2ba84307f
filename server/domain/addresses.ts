// Stable tunnel addresses: each device owns one IPv4 and one IPv6 address, the same on every node.
import ipaddr from 'ipaddr.js';

import { TUNNEL_IPV4_CIDR, TUNNEL_IPV6_CIDR } from '../../contracts/index.js';

export {
  GATEWAY_IPV4,
  GATEWAY_IPV6,
  TUNNEL_IPV4_CIDR,
  TUNNEL_IPV6_CIDR,
} from '../../contracts/index.js';

// .0 is the network and .1 the gateway; devices start at .2.
const FIRST_HOST = 2;
const IPV4_HOSTS = 2 ** (32 - 10) - FIRST_HOST - 1;

function ipv4Base(): number {
  const [net] = ipaddr.IPv4.parseCIDR(TUNNEL_IPV4_CIDR);
  return net.toByteArray().reduce((acc, b) => acc * 256 + b, 0);
}

export function tunnelAddresses(seq: number): { ipv4: string; ipv6: string } {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > IPV4_HOSTS) {
    throw new RangeError(`device sequence ${seq} is outside the tunnel address pool`);
  }
  const offset = seq - 1 + FIRST_HOST;
  const v4 = ipv4Base() + offset;
  const ipv4 = ipaddr.fromByteArray([v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255]);
  const [net6] = ipaddr.IPv6.parseCIDR(TUNNEL_IPV6_CIDR);
  const parts = net6.parts.slice();
  parts[6] = Math.floor(offset / 65536);
  parts[7] = offset % 65536;
  return { ipv4: ipv4.toString(), ipv6: new ipaddr.IPv6(parts).toString() };
}
