// The engine's OS bundle of fakes for its unit tests: platform/os's fakes of links, routes,
// firewall and sysctl, and the engine's own resolver fake, sharing one journal of every call.
import { addressFamily, checkInterfaceName } from '../../platform/os/arguments.js';
import { Faults, Journal } from '../../platform/os/journal.fake.js';
import { FakeLinks } from '../../platform/os/links.fake.js';
import { FakeFirewall } from '../../platform/os/nftables.fake.js';
import { FakeRoutes } from '../../platform/os/routes.fake.js';
import { FakeSysctl } from '../../platform/os/sysctl.fake.js';
import type { OsEffects } from './effects.js';
import type { Resolver } from './resolver.js';

export class FakeResolver extends Faults implements Resolver {
  /** The servers in use while set; null when the system's own resolver is in place. */
  servers: string[] | null = null;
  interfaceName: string | null = null;
  /** The home network's resolvers, as the system had them before the first set. */
  home: string[] = [];

  constructor(private readonly journal = new Journal()) {
    super();
  }

  async set(servers: readonly string[], interfaceName: string): Promise<void> {
    this.journal.record('resolver', 'set', [servers, interfaceName]);
    for (const s of servers) addressFamily(s, 'resolver address');
    checkInterfaceName(interfaceName);
    this.take('set');
    this.servers = [...servers];
    this.interfaceName = interfaceName;
  }

  async homeServers(): Promise<string[]> {
    this.take('homeServers');
    return [...this.home];
  }

  async restore(): Promise<void> {
    this.journal.record('resolver', 'restore', []);
    this.take('restore');
    this.servers = null;
    this.interfaceName = null;
  }
}

export interface FakeOs extends OsEffects {
  links: FakeLinks;
  routes: FakeRoutes;
  firewall: FakeFirewall;
  resolver: FakeResolver;
  sysctl: FakeSysctl;
  journal: Journal;
}

/** A fresh set of fakes sharing one journal. */
export function createFakeOs(): FakeOs {
  const journal = new Journal();
  const links = new FakeLinks(journal);
  return {
    journal,
    links,
    routes: new FakeRoutes(journal, links),
    firewall: new FakeFirewall(journal),
    resolver: new FakeResolver(journal),
    sysctl: new FakeSysctl(journal),
  };
}
