// Where the relay's resolver sends its queries: the operator's --dns-upstream, else the host's
// own resolvers from /etc/resolv.conf, never the relay's own gateway addresses (a loop).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { GATEWAY_IPV4, GATEWAY_IPV6 } from '../../contracts/index.js';
import type { Upstream } from '../../platform/dns/exchange.js';

const OWN = new net.BlockList();
OWN.addAddress(GATEWAY_IPV4, 'ipv4');
OWN.addAddress(GATEWAY_IPV6, 'ipv6');

/** Whether `address` is one the relay's resolver itself listens on (in any spelling). */
export function isGatewayAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  try {
    return OWN.check(address, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    // A scoped link-local address (fe80::1%eth0) is not one of ours.
    return false;
  }
}

/**
 * The `nameserver` addresses of a resolv.conf, in order and once each, without the gateway's
 * own. Loopback stubs (127.0.0.53) stay: the relay process reaches them as any program does.
 */
export function resolvConfNameservers(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const [keyword, value] = line.trim().split(/\s+/);
    if (keyword !== 'nameserver' || value === undefined) continue;
    if (net.isIP(value) === 0 || isGatewayAddress(value) || out.includes(value)) continue;
    out.push(value);
  }
  return out;
}

/** The host's resolvers; none when resolv.conf cannot be read. */
export function systemNameservers(file = '/etc/resolv.conf'): string[] {
  try {
    return resolvConfNameservers(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

export function upstreamsOf(addresses: readonly string[]): Upstream[] {
  return addresses.map((address) => ({ address, port: 53 }));
}
