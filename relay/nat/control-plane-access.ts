// Where the relay's control plane is, and what of it the relay's firewall opens to devices: they
// are its clients, and with a full tunnel they reach it through the relay, so a control plane on
// the relay host itself, or in a range otherwise closed to devices (the uplink's subnet, a private
// network), gets its one TCP port opened to them, on exactly its addresses.
import { lookup as dnsLookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/** The addresses of this host's interfaces. */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/** The control plane as the relay reaches it: every address its URL's host stands for, its port. */
export interface ControlPlaneEndpoint {
  host: string;
  port: number;
  addresses: string[];
}

/** Every address of a host name, in both families (the system's resolver: hosts file, DNS). */
export type NameLookup = (name: string) => Promise<string[]>;

export const systemLookup: NameLookup = async (name) =>
  (await dnsLookup(name, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Where `controlUrl` points: an address literal is itself, localhost loopback, and a name every
 * address `lookup` gives for it (the relay looks it up once, at start). Rejects, saying why,
 * when the URL is not http(s) or the name does not resolve.
 */
export async function resolveControlPlane(
  controlUrl: string,
  lookup: NameLookup = systemLookup,
): Promise<ControlPlaneEndpoint> {
  let url: URL;
  try {
    url = new URL(controlUrl);
  } catch {
    throw new Error('the control plane URL is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('the control plane URL is not http(s)');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (ipaddr.isValid(host)) return { host, port, addresses: [host] };
  // RFC 6761: localhost names loopback, whatever a resolver says.
  if (host === 'localhost' || host.endsWith('.localhost'))
    return { host, port, addresses: ['127.0.0.1', '::1'] };
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`${host} did not resolve${code ? ` (${code})` : ''}`, { cause: e });
  }
  if (addresses.length === 0) throw new Error(`${host} did not resolve (no address)`);
  return { host, port, addresses };
}

/** What of the control plane the firewall opens to devices, by TCP port. */
export interface ControlPlaneOpenings {
  port: number;
  /**
   * This host's addresses devices may reach the port on. 'any': every one, for a control plane
   * the relay reaches on loopback: devices know the host by an address the URL does not name.
   */
  onHost: 'any' | string[];
  /** Addresses beyond this host, in ranges closed to devices, whose port is opened to them. */
  beyond: string[];
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The address, IPv4 for an IPv4-mapped one, without a zone; undefined when it is none. */
function parsed(text: string): Address | undefined {
  const bare = text.replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const a = ipaddr.parse(bare);
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()
    ? (a as ipaddr.IPv6).toIPv4Address()
    : a;
}

function inCidr(a: Address, cidr: string): boolean {
  const range = ipaddr.parseCIDR(cidr);
  return range[0].kind() === a.kind() && a.match(range);
}

/**
 * Decides what devices may reach of the control plane at `endpoint`: on this host (one of
 * `hostAddresses`, or loopback) its port on that address, beyond it its port on each of its
 * addresses that lies in one of the `closed` ranges (CIDR: the non-global ranges and the
 * uplink's subnets), and nothing for an address on the internet, which is open anyway. An
 * address in the link-local range is never opened (a cloud's metadata service answers there).
 */
export function controlPlaneOpenings(
  endpoint: Pick<ControlPlaneEndpoint, 'port' | 'addresses'>,
  hostAddresses: readonly string[],
  closed: readonly string[],
): ControlPlaneOpenings {
  const host = hostAddresses.flatMap((h) => parsed(h) ?? []);
  let anyOnHost = false;
  const onHost = new Set<string>();
  const beyond = new Set<string>();
  for (const text of endpoint.addresses) {
    const a = parsed(text);
    if (!a) continue;
    const range = a.range();
    if (range === 'loopback') anyOnHost = true;
    else if (host.some((h) => h.kind() === a.kind() && h.toString() === a.toString()))
      onHost.add(a.toString());
    else if (range !== 'linkLocal' && closed.some((c) => inCidr(a, c))) beyond.add(a.toString());
  }
  return { port: endpoint.port, onHost: anyOnHost ? 'any' : [...onHost], beyond: [...beyond] };
}
