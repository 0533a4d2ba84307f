// Every OS effect the relay has, as one bundle of platform/os's seams: the relay takes a RelayOs,
// ferry-relay gives it the Linux implementations, unit tests the fakes (os.fake.ts).
import { LinuxLinks, type Links } from '../platform/os/links.js';
import { NftFirewall, type Firewall } from '../platform/os/nftables.js';
import { LinuxRoutes, type Routes } from '../platform/os/routes.js';
import { LinuxSysctl, type Sysctl } from '../platform/os/sysctl.js';
import { linuxWireguardSystem, type WireguardSystem } from '../platform/os/wireguard-go.js';

export interface RelayOs {
  /** The WireGuard interfaces' addresses, MTU and state; the uplink's subnets. */
  links: Links;
  /** The shards' routes, and the Ferry interface's table and rule. */
  routes: Routes;
  /** The relay's nftables tables (NAT, isolation, rate tiers; the Ferry replies' marks). */
  firewall: Firewall;
  /** Forwarding on. */
  sysctl: Sysctl;
  /** The shards' wireguard-go processes and their UAPI sockets. */
  wireguard: WireguardSystem;
}

export function linuxRelayOs(): RelayOs {
  return {
    links: new LinuxLinks(),
    routes: new LinuxRoutes(),
    firewall: new NftFirewall(),
    sysctl: new LinuxSysctl(),
    wireguard: linuxWireguardSystem(),
  };
}
