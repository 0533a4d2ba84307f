// Where this host's names are asked while connected: the system resolver pointed at the engine's
// resolver (DnsProxy), which asks the tunnel's resolver and, for names at home, the home
// network's; or, where the engine runs without one (unit tests) or it cannot start, the tunnel's
// resolver itself. Put back as it was on disconnect.
import type { Notice, SplitRule } from '../../contracts/index.js';
import type { Resolver } from '../os/resolver.js';
import type { DnsProxy, ProxyRoutes } from './dns-proxy.js';
import type { RuleAddresses } from './rule-addresses.js';

export interface EngineDnsDeps {
  /** The system resolver. */
  resolver: Resolver;
  proxy: DnsProxy | null;
  ruleAddresses: Pick<RuleAddresses, 'clear'>;
}

/** What the system resolver asks now: the engine's resolver, the tunnel's, or its own (null). */
export type ResolverInUse = 'engine' | 'tunnel' | null;

export class EngineDns {
  #inUse: ResolverInUse = null;

  constructor(private readonly deps: EngineDnsDeps) {}

  get inUse(): ResolverInUse {
    return this.#inUse;
  }

  /**
   * The home network's resolvers, for the engine's resolver (none without one): those the system
   * had before the tunnel. Unknown is none: every name then goes to the tunnel's resolver.
   */
  async homeServers(): Promise<string[]> {
    if (!this.deps.proxy) return [];
    return this.deps.resolver.homeServers().catch(() => []);
  }

  /**
   * Points the system resolver at the engine's resolver answering by `routes`, or at the tunnel's
   * resolvers when there is none; a notice when the engine's resolver would not start.
   */
  async use(routes: ProxyRoutes, interfaceName: string): Promise<Notice | null> {
    const proxy = this.deps.proxy;
    let notice: Notice | null = null;
    if (proxy) {
      try {
        await proxy.use(routes);
        await this.deps.resolver.set([proxy.address], interfaceName);
        this.#inUse = 'engine';
        return null;
      } catch (e) {
        // Its address taken, or no tunnel resolver: names still go through the tunnel only.
        await proxy.stop().catch(() => undefined);
        notice = {
          code: 'dns-split-unavailable',
          message: `the engine's resolver did not start (${errorCode(e)}): every name is asked through the tunnel, domestic ones too`,
        };
      }
    }
    await this.deps.resolver.set(routes.tunnel, interfaceName);
    this.#inUse = 'tunnel';
    return notice;
  }

  /** The split rules changed: the engine's resolver asks by the new ones. */
  setRules(rules: readonly SplitRule[]): void {
    this.deps.proxy?.setRules(rules);
  }

  /** Puts the system resolver back (also what a crashed run changed) and stops the engine's. */
  async restore(): Promise<void> {
    await this.deps.resolver.restore();
    this.#inUse = null;
    await this.deps.proxy?.stop();
    this.deps.ruleAddresses.clear();
  }
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : 'error');
}
