// The relay's OS bundle of fakes for its unit tests: platform/os's fakes sharing one journal,
// wireguard-go's making its links in the fake links, as the real one makes its TUN device.
import { Journal } from '../platform/os/journal.fake.js';
import { FakeLinks } from '../platform/os/links.fake.js';
import { FakeFirewall } from '../platform/os/nftables.fake.js';
import { FakeRoutes } from '../platform/os/routes.fake.js';
import { FakeSysctl } from '../platform/os/sysctl.fake.js';
import { FakeWireguardSystem } from '../platform/os/wireguard-go.fake.js';
import type { RelayOs } from './os.js';

export interface FakeRelayOs extends RelayOs {
  links: FakeLinks;
  routes: FakeRoutes;
  firewall: FakeFirewall;
  sysctl: FakeSysctl;
  wireguard: FakeWireguardSystem;
  journal: Journal;
}

/**
 * A fresh set of fakes sharing one journal, with the uplink `uplink` holding `addresses` (the
 * subnets the relay keeps its devices from).
 */
export function createFakeRelayOs(uplink = 'eth0', addresses: readonly string[] = []): FakeRelayOs {
  const journal = new Journal();
  const links = new FakeLinks(journal);
  links.addExisting(uplink, null);
  links.links.get(uplink)!.addresses.push(...addresses);
  links.links.get(uplink)!.up = true;
  const wireguard = new FakeWireguardSystem(links);
  // No device handshakes unless a test says so.
  wireguard.nodeAnswers = false;
  return {
    journal,
    links,
    routes: new FakeRoutes(journal, links),
    firewall: new FakeFirewall(journal),
    sysctl: new FakeSysctl(journal),
    wireguard,
  };
}
