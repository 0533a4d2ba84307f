// Which network this host is on, as the transport autopilot tells networks apart: the IPv4
// default route's gateway, that gateway's hardware address, and the prefix of the link it is
// reached on. Read with `ip -j`; nothing is kept here (the engine hashes it at once).
import ipaddr from 'ipaddr.js';

import { runCommand, type CommandRunner } from './command.js';

export interface NetworkIdentity {
  /** The default gateway's hardware address (lower case), null when the host has not met it. */
  gatewayMac: string | null;
  /** The IPv4 prefix of the link the gateway is on, e.g. 192.168.1.0/24. */
  prefix: string;
}

export interface NetworkIdentityReader {
  /** The network the host is on now, or null without an IPv4 default route. */
  read(): Promise<NetworkIdentity | null>;
}

interface IpRoute {
  dst?: string;
  gateway?: string;
  dev?: string;
  metric?: number;
}
interface IpNeighbour {
  dst?: string;
  lladdr?: string;
}
interface IpAddress {
  addr_info?: { family?: string; local?: string; prefixlen?: number }[];
}

function parse<T>(stdout: string): T[] {
  try {
    const v: unknown = JSON.parse(stdout || '[]');
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

/** The network prefix of an address and its length ("192.168.1.7", 24 -> "192.168.1.0/24"). */
export function networkPrefix(address: string, length: number): string | null {
  try {
    const parsed = ipaddr.IPv4.networkAddressFromCIDR(`${address}/${length}`);
    return `${parsed.toString()}/${length}`;
  } catch {
    return null;
  }
}

export class LinuxNetworkIdentity implements NetworkIdentityReader {
  constructor(private readonly run: CommandRunner = runCommand) {}

  async read(): Promise<NetworkIdentity | null> {
    const routes = await this.json<IpRoute>(['-4', '-j', 'route', 'show', 'default']);
    const route = routes
      .filter((r) => r.dev !== undefined && r.gateway !== undefined)
      .sort((a, b) => (a.metric ?? 0) - (b.metric ?? 0))[0];
    if (!route) return null;
    const [neighbours, addresses] = await Promise.all([
      this.json<IpNeighbour>(['-4', '-j', 'neigh', 'show', route.gateway!, 'dev', route.dev!]),
      this.json<IpAddress>(['-4', '-j', 'address', 'show', 'dev', route.dev!]),
    ]);
    const gateway = ipaddr.parse(route.gateway!);
    // The address of the link whose prefix holds the gateway (a link may carry several).
    const prefix = addresses
      .flatMap((a) => a.addr_info ?? [])
      .filter((i) => i.family === 'inet' && i.local && i.prefixlen !== undefined)
      .map((i) => networkPrefix(i.local!, i.prefixlen!))
      .find((p) => p !== null && gateway.match(ipaddr.parseCIDR(p)));
    if (!prefix) return null;
    const mac = neighbours.find((n) => n.lladdr)?.lladdr?.toLowerCase() ?? null;
    return { gatewayMac: mac, prefix };
  }

  private async json<T>(args: string[]): Promise<T[]> {
    const out = await this.run('ip', args);
    return out.exitCode === 0 ? parse<T>(out.stdout) : [];
  }
}
