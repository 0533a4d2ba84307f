// Whether the relay's control plane runs on the relay host itself (`start.sh` runs both on one
// machine), and on which TCP port: its devices are its clients, and with a full tunnel they reach
// it through the relay, so the relay's firewall keeps that one port of the host open to them.
import net from 'node:net';
import { networkInterfaces } from 'node:os';

/** The addresses of this host's interfaces. */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/**
 * The TCP port of the control plane when `controlUrl` names this host (localhost, a loopback
 * address, or one of `addresses`), else null. A name other than localhost is not resolved: a
 * control plane reached by name counts as elsewhere.
 */
export function localControlPort(controlUrl: string, addresses: readonly string[]): number | null {
  let url: URL;
  try {
    url = new URL(controlUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const onHost =
    host === 'localhost' ||
    (net.isIPv4(host) && host.startsWith('127.')) ||
    host === '::1' ||
    (net.isIP(host) !== 0 && addresses.some((a) => sameAddress(a, host)));
  if (!onHost) return null;
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function sameAddress(a: string, b: string): boolean {
  if (net.isIP(a) !== net.isIP(b)) return false;
  const list = new net.BlockList();
  list.addAddress(a, net.isIPv6(a) ? 'ipv6' : 'ipv4');
  return list.check(b, net.isIPv6(b) ? 'ipv6' : 'ipv4');
}
