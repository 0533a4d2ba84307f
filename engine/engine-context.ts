// What the engine's services share (engine/connection, engine/account, engine/settings,
// engine/catalog): the state dir's stores, the one control-plane client, the protections'
// guard, host-name lookups, the node latencies, and the events the faces follow. Built once by
// engine.ts; each service takes it instead of a long list of parameters.
import {
  SHIPPED_PLATFORMS,
  type ClientConfig,
  type ControlClient,
  type Device,
  type PlatformTable,
} from '../contracts/index.js';
import { ApiAccess } from './api-access/api-access.js';
import { RelayListRefresh } from './api-access/list-refresh.js';
import { markedOpeners } from './api-access/openers.js';
import { RelayLists, SHIPPED_RELAY_LIST } from './api-access/relay-lists.js';
import { NodeLatencies } from './catalog/node-latencies.js';
import { NetworkMemory } from './transports/network-memory.js';
import { RuleStore } from './catalog/region-rules.js';
import { ConfigStore } from './config-store.js';
import { ControlAccess } from './control-access.js';
import type { EngineEvent } from './engine-api.js';
import type { EngineDeps } from './engine-deps.js';
import { FerryError } from './errors.js';
import { HostAddresses } from './host-addresses.js';
import { KeyStore } from './key-store.js';
import { OperationQueue } from './operation-queue.js';
import { ConnectionGuard } from './protection/connection-guard.js';
import type { Endpoint } from './protection/firewall-policy.js';
import { Protection } from './protection/protection.js';
import { SessionStore } from './session-store.js';
import { SplitChoice } from './split/split-choice.js';
import { SplitRuleStore } from './split/split-rules.js';
import { AppSplit } from './split/app-split.js';
import { DnsProxy } from './dns/dns-proxy.js';
import { EngineDns } from './dns/engine-dns.js';
import { RuleAddresses } from './dns/rule-addresses.js';

export class EngineContext {
  readonly config: ConfigStore;
  readonly keys: KeyStore;
  readonly sessions: SessionStore;
  readonly rules: RuleStore;
  readonly control: ControlAccess;
  /** How the control plane is reached (API access methods) and the relay lists they use. */
  readonly api: ApiAccess;
  readonly relayLists: RelayLists;
  readonly listRefresh: RelayListRefresh;
  readonly guard: ConnectionGuard;
  readonly hosts: HostAddresses;
  readonly latencies: NodeLatencies;
  /** What transport worked on which network (the transport autopilot's memory). */
  readonly networks: NetworkMemory;
  readonly split: SplitChoice;
  /** The split rules by domain, and the addresses of their names in force. */
  readonly splitRules: SplitRuleStore;
  readonly ruleAddresses: RuleAddresses;
  /** The engine's resolver while connected; null: the system resolver asks the tunnel's. */
  readonly dnsProxy: DnsProxy | null;
  /** Where the system's names are asked while connected. */
  readonly dns: EngineDns;
  /** Programs on one way; null where the engine runs without (unit tests). */
  readonly apps: AppSplit | null;
  readonly platforms: PlatformTable;
  /** One operation at a time: connect, disconnect, sign-in, a failover's attempt. */
  readonly ops = new OperationQueue();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  signedIn = false;

  constructor(readonly deps: EngineDeps) {
    this.config = new ConfigStore(deps.stateDir);
    this.keys = new KeyStore({ stateDir: deps.stateDir, ferryKeys: deps.ferryKeys });
    this.sessions = new SessionStore(deps.stateDir);
    this.rules = new RuleStore(deps.stateDir);
    this.control = new ControlAccess({
      fetch: deps.fetch,
      token: async () => (await this.sessions.token()) ?? undefined,
      timeoutMs: deps.controlTimeoutMs,
      trustServiceCa: deps.trustServiceCa,
    });
    this.ruleAddresses = new RuleAddresses(deps.os.firewall);
    this.splitRules = new SplitRuleStore(deps.stateDir);
    this.dnsProxy = deps.resolverProxy
      ? new DnsProxy(this.ruleAddresses, deps.resolverProxy)
      : null;
    this.guard = new ConnectionGuard({
      protection: new Protection({ ...deps.os, liveElements: () => this.ruleAddresses.elements() }),
      links: deps.os.links,
    });
    this.apps = deps.apps ? new AppSplit(deps.apps) : null;
    this.dns = new EngineDns({
      resolver: deps.os.resolver,
      proxy: this.dnsProxy,
      ruleAddresses: this.ruleAddresses,
    });
    this.hosts = new HostAddresses(deps.lookupHost);
    this.latencies = new NodeLatencies(deps.datagrams);
    this.networks = new NetworkMemory(
      deps.stateDir,
      // Without a reader (unit tests) no network is named and nothing is remembered.
      deps.networkIdentity ?? { read: async () => null },
    );
    this.relayLists = new RelayLists({
      stateDir: deps.stateDir,
      shipped: deps.shippedRelayList ?? SHIPPED_RELAY_LIST,
      given: deps.relayList,
    });
    this.api = new ApiAccess({
      openers: deps.apiOpeners ?? markedOpeners(),
      relays: this.relayLists,
      networks: this.networks,
      resetConnections: () => deps.resetConnections?.(),
    });
    deps.useControlRoute?.(this.api.route);
    this.listRefresh = new RelayListRefresh({
      lists: this.relayLists,
      recordKey: async (key) => {
        await this.config.patch({ service_key: key });
      },
      // A new list may name other relays: the kill switch lets the engine reach the new ones.
      // (Not queued as an operation: that would supersede a connect under way.)
      listChanged: async () => {
        if (this.guard.facts.stage === 'off' && !this.guard.facts.lockdown) return;
        const controlPlane = await this.controlEndpoints(await this.config.load());
        await this.guard.update({ controlPlane });
      },
    });
    this.split = new SplitChoice(deps.split);
    this.platforms = deps.platforms ?? SHIPPED_PLATFORMS;
  }

  /** The control-plane client for the configuration as it is now. */
  async controlClient(config?: ClientConfig): Promise<ControlClient> {
    const c = config ?? (await this.config.load());
    this.api.note(c);
    return this.control.client(c);
  }

  /** A call reached the service: the relay list is refreshed when due (in the background). */
  reachedService(client: ControlClient, config: ClientConfig): void {
    this.listRefresh.maybe(client, config);
  }

  /** The sign-in; refuses when there is none. */
  async requireSession(): Promise<{ accountNumber: string; device: Device }> {
    const session = await this.sessions.info();
    this.signedIn = session !== null;
    if (!session) {
      throw new FerryError(
        'not-signed-in',
        'this device is not signed in: run netcli account create, or netcli login <number>',
      );
    }
    return session;
  }

  /** The control client and the sign-in, for the commands that need both. */
  async signedInControl(): Promise<ControlClient> {
    const control = await this.controlClient();
    await this.requireSession();
    return control;
  }

  /**
   * The control plane's addresses and port, for the kill switch, and those its API access
   * methods reach it by (relays' TLS ports, a proxy): only the engine's marked sockets get out
   * to them.
   */
  async controlEndpoints(config: ClientConfig): Promise<Endpoint[]> {
    if (config.service === null) return [];
    const url = new URL(config.service);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // A name the network will not resolve (a censor's doing) must not keep the others out; a
    // method other than direct never goes there straight (not even a kept-alive connection).
    const addresses = ApiAccess.allowsDirect(config)
      ? await this.hosts.resolve(host).catch(() => [])
      : [];
    const direct = addresses.map((address) => ({ address, port, protocol: 'tcp' as const }));
    const others = await this.api.endpoints(config, (h) => this.hosts.resolve(h));
    return [...direct, ...others];
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: EngineEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A face's listener failing must not stop the engine or the other faces.
      }
    }
  }

  closeListeners(): void {
    this.#listeners.clear();
  }
}
