// The client engine, wired: one shared context (engine-context.ts) and the services over it:
// the main connection's state machine (engine/connection/, one file per state), the sign-in and
// devices (engine/account/), the configuration (engine/settings/), regions, rules and latency
// (engine/catalog/), diagnostics, services and service tunnels. Hosts (netcli daemon, Electron
// main) reach it through EngineApi; it knows nothing of HTTP, IPC or the OS beyond its seams.

import {
  idleStatus,
  latencyFigure,
  latencyText,
  type AddDestinationSetRequest,
  type ClientConfig,
  type ConfigChangeResult,
  type Device,
  type DiagnosticsReport,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalConnectRequest,
  type LocalConnectResponse,
  type LocalSession,
  type LocalStatus,
  type ProtectionStatus,
  type RegionRule,
  type DestinationSet,
  type ServiceTunnel,
  type StartTunnelRequest,
  type StopTunnelResponse,
  type SplitRule,
  type SplitRuleTarget,
  type SplitVia,
} from '../contracts/index.js';
import { AccountService } from './account/account.js';
import { ApiAccessCommands } from './api-access/commands.js';
import { CatalogService } from './catalog/catalog.js';
import type { RuleStore } from './catalog/region-rules.js';
import type { ConfigStore } from './config-store.js';
import { MainConnection } from './connection/connection.js';
import type { ConnectReason } from './connection/machine.js';
import { diagnoseDeps } from './diagnose/engine-deps.js';
import { runDiagnostics } from './diagnose/run.js';
import type { EngineApi, EngineEvent } from './engine-api.js';
import { EngineContext } from './engine-context.js';
import type { EngineDeps } from './engine-deps.js';
import { FerryError } from './errors.js';
import type { KeyStore } from './key-store.js';
import { isThisMachine } from './local-node.js';
import type { ConnectionGuard } from './protection/connection-guard.js';
import { ServiceTunnels } from './service-tunnels.js';
import { DestinationSetStore, systemResolveIpv4 } from './services.js';
import type { SessionStore } from './session-store.js';
import { SettingsService } from './settings/settings.js';
import { transportPort } from './transports/plan.js';
import { GeoSplitTunnel } from './split/split-tunnel.js';
import { SplitRuleCommands } from './split/split-rule-commands.js';
import { TunnelKeyStore } from './tunnel-keys.js';

export type { EngineDeps } from './engine-deps.js';

/** The split by country's home and its question, while it splits. */
function homeOf(
  country: string | null,
  isHome: ((address: string) => boolean) | null,
): { country: string; isHome: (address: string) => boolean } | null {
  return country !== null && isHome !== null ? { country, isHome } : null;
}

export class Engine implements EngineApi {
  readonly #ctx: EngineContext;
  readonly #connection: MainConnection;
  readonly #account: AccountService;
  readonly #settings: SettingsService;
  readonly #catalog: CatalogService;
  readonly #splitRules: SplitRuleCommands;
  readonly #apiAccess: ApiAccessCommands;
  readonly services: DestinationSetStore;
  readonly serviceTunnels: ServiceTunnels;
  #closed = false;
  #unwatch: (() => void) | null = null;

  constructor(private readonly deps: EngineDeps) {
    const ctx = new EngineContext(deps);
    this.#ctx = ctx;
    const statusChanged = () => ctx.emit({ type: 'status', status: this.status() });
    this.#connection = new MainConnection(ctx, statusChanged);
    this.services = new DestinationSetStore(deps.stateDir);
    this.serviceTunnels = new ServiceTunnels({
      control: () => ctx.controlClient(),
      device: async () => (await ctx.requireSession()).device,
      config: () => ctx.config.load(),
      rules: () => ctx.rules.list(),
      services: this.services,
      keys: new TunnelKeyStore({ stateDir: deps.stateDir, ferryKeys: deps.ferryKeys }),
      tunnels: deps.tunnels,
      resolve: deps.resolveIpv4 ?? systemResolveIpv4,
      isThisMachine: (host) => (deps.isThisMachine ?? isThisMachine)(host),
      ...(deps.serviceInterfaceName ? { interfaceName: deps.serviceInterfaceName } : {}),
      allowEndpoints: (tag, endpoints) => ctx.guard.serviceTunnel(tag, endpoints),
      ...(deps.resetConnections ? { resetConnections: deps.resetConnections } : {}),
    });
    this.#account = new AccountService(ctx, {
      beforeSignOut: async () => {
        await this.#connection.disconnectNow('signed-out');
        // The service tunnels go with the device (the revocation removes them on the control plane).
        await this.serviceTunnels.stopAll({ unregister: false }).catch(() => undefined);
      },
      changed: statusChanged,
    });
    this.#settings = new SettingsService(ctx, this.#connection, (overrides) =>
      this.connect({ ...overrides }),
    );
    this.#catalog = new CatalogService(ctx, this.#connection);
    this.#apiAccess = new ApiAccessCommands(ctx, deps.probeControl);
    this.#splitRules = new SplitRuleCommands({
      store: ctx.splitRules,
      rulesChanged: (rules) => this.#connection.splitRulesChanged(rules),
      apps: ctx.apps,
    });
  }

  get config(): ConfigStore {
    return this.#ctx.config;
  }

  get keys(): KeyStore {
    return this.#ctx.keys;
  }

  get sessions(): SessionStore {
    return this.#ctx.sessions;
  }

  get rules(): RuleStore {
    return this.#ctx.rules;
  }

  get guard(): ConnectionGuard {
    return this.#ctx.guard;
  }

  /** Reads the state dir (so the status is right from the start) and removes a crash's leftovers. */
  async start(): Promise<void> {
    const ctx = this.#ctx;
    const [config, session] = await Promise.all([ctx.config.load(), ctx.sessions.info()]);
    ctx.control.note(config);
    ctx.api.note(config);
    ctx.signedIn = session !== null;
    await this.deps.tunnels.cleanupLeftovers();
    this.#unwatch =
      this.deps.networkWatch?.watch(() => {
        if (this.#closed) return;
        ctx.api.networkChanged();
        this.#connection.onNetworkChange();
      }) ?? null;
    await this.#connection.start(config, session !== null);
    // Programs whose rules hold are looked for again (a rule that cannot hold here says so when
    // it is added; the start goes on).
    await this.#splitRules.start().catch(() => undefined);
  }

  // ---- status and events ----------------------------------------------------------------------

  status(): LocalStatus {
    const ctx = this.#ctx;
    const mem = this.#connection.mem;
    const snap = mem.machine.snapshot;
    const live = mem.live;
    const base = idleStatus(
      ctx.signedIn,
      ctx.control.configured,
      this.protectionStatus(),
      ctx.control.insecure,
    );
    const tunnel = snap.tunnel;
    return {
      ...base,
      status: snap.state,
      latency: snap.latencyMs === null ? null : latencyText(snap.latencyMs),
      latency_ms: snap.latencyMs === null ? null : latencyFigure(snap.latencyMs),
      latency_history: mem.latencyHistory.samples,
      region: tunnel?.region ?? snap.target?.region ?? null,
      node:
        live && tunnel
          ? {
              id: live.answer.node.id,
              region: live.answer.node.region,
              endpoint: `${live.answer.node.endpoint_host}:${transportPort(
                live.answer.node,
                live.answer.protocol,
                live.transport,
              )}`,
              ...(live.answer.entry
                ? { entry: { id: live.answer.entry.id, region: live.answer.entry.region } }
                : {}),
            }
          : null,
      protocol: tunnel?.protocol ?? null,
      cipher: tunnel?.cipher ?? null,
      mode: snap.target?.mode ?? null,
      platform: snap.target?.platform ?? null,
      transport: tunnel && live ? live.transport : null,
      transport_reason: tunnel && live ? live.transportReason : null,
      interface: tunnel?.interfaceName ?? null,
      error: snap.error,
      notices: snap.state === 'disconnected' ? [] : [...mem.notices],
      api_access: ctx.api.status(),
    };
  }

  /** What protects the connection right now, from the facts the guard holds. */
  private protectionStatus(): ProtectionStatus {
    const { guard, split } = this.#ctx;
    const facts = guard.facts;
    return {
      kill_switch: !facts.killSwitch ? 'off' : guard.policy?.block ? 'active' : 'armed',
      lockdown: facts.lockdown,
      split: facts.split ? 'by-country' : split.notice ? 'unavailable' : 'off',
      home_country: facts.split ? split.home : null,
      dns: facts.stage === 'connected' || facts.stage === 'reconnecting' ? [...facts.dns] : [],
    };
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    return this.#ctx.subscribe(listener);
  }

  // ---- the main connection (engine/connection) ------------------------------------------------

  async connect(
    request: LocalConnectRequest,
    signal?: AbortSignal,
    reason: ConnectReason = 'user-connect',
  ): Promise<LocalConnectResponse> {
    this.checkOpen();
    const result = await this.#connection.connect(request, signal, reason);
    return { ...this.status(), ...result };
  }

  async disconnect(): Promise<LocalStatus> {
    this.checkOpen();
    await this.#connection.disconnect('user-disconnect');
    return this.status();
  }

  // ---- configuration (engine/settings) ------------------------------------------------------

  getConfig(): Promise<ClientConfig> {
    return this.#settings.get();
  }

  patchConfig(patch: unknown): Promise<ConfigChangeResult> {
    return this.#settings.patch(patch);
  }

  setConfigKey(key: string, value: string): Promise<ConfigChangeResult> {
    return this.#settings.set(key, value);
  }

  init(request: Parameters<SettingsService['init']>[0]): Promise<ConfigChangeResult> {
    return this.#settings.init(request);
  }

  // ---- sign-in and the account (engine/account) ------------------------------------------------

  createAccount(request: Parameters<AccountService['createAccount']>[0]): Promise<LocalSession> {
    this.checkOpen();
    return this.#account.createAccount(request);
  }

  login(request: Parameters<AccountService['login']>[0]): Promise<LocalSession> {
    this.checkOpen();
    return this.#account.login(request);
  }

  logout(): Promise<{ signed_in: false }> {
    this.checkOpen();
    return this.#account.logout();
  }

  account() {
    return this.#account.account();
  }

  listDevices() {
    return this.#account.listDevices();
  }

  addDevice(request: LocalAddDeviceRequest): Promise<LocalAddDeviceResponse> {
    this.checkOpen();
    return this.#account.addDevice(request);
  }

  renameDevice(id: string, name: string): Promise<Device> {
    return this.#account.renameDevice(id, name);
  }

  revokeDevice(id: string): Promise<void> {
    return this.#account.revokeDevice(id);
  }

  // ---- regions, rules, latency, stream-test (engine/catalog) ----------------------------------

  listRegions() {
    return this.#catalog.listRegions();
  }

  addRegionRule(request: Parameters<CatalogService['addRegionRule']>[0]): Promise<RegionRule> {
    return this.#catalog.addRegionRule(request);
  }

  removeRegionRule(name: string): Promise<void> {
    return this.#catalog.removeRegionRule(name);
  }

  latencyCheck(request: { all: boolean; count: number }) {
    return this.#catalog.latencyCheck(request);
  }

  streamTest(request: { platform: string }, signal?: AbortSignal) {
    this.checkOpen();
    return this.#catalog.streamTest(request, signal);
  }

  // ---- API access methods (engine/api-access) ----------------------------------------------

  apiAccess() {
    return this.#apiAccess.list();
  }

  testApiAccess(request: { method: string }, signal?: AbortSignal) {
    return this.#apiAccess.test(request.method, signal);
  }

  useApiAccess(request: { method: string }, signal?: AbortSignal) {
    return this.#apiAccess.use(request.method, signal);
  }

  // ---- diagnostics (engine/diagnose) --------------------------------------------------------

  /** Every check with its verdict and fix, from the engine's own parts (engine/diagnose). */
  async diagnose(signal?: AbortSignal): Promise<DiagnosticsReport> {
    this.checkOpen();
    const ctx = this.#ctx;
    const mem = this.#connection.mem;
    const live = mem.machine.state === 'connected' ? mem.live : null;
    const split = this.deps.split;
    const deps = await diagnoseDeps({
      status: this.status(),
      config: await ctx.config.load(),
      fetch: this.deps.fetch,
      token: () => ctx.sessions.token(),
      connection: live && {
        answer: live.answer,
        interfaceName: live.tunnel.interfaceName,
        transport: live.transport,
      },
      exitAfter: mem.exitAfter,
      latencies: { ...ctx.latencies.smoothed },
      guard: ctx.guard,
      os: this.deps.os,
      resolveHost: (host) => ctx.hosts.resolve(host),
      split: split instanceof GeoSplitTunnel ? () => split.describe() : null,
      probes: this.deps.diagnoseProbes,
      rememberedTransport: async () => (await ctx.networks.here()).remembered,
      home: homeOf(ctx.split.home, ctx.split.isHome()),
      resolver: ctx.dns.inUse === 'engine' ? (ctx.dnsProxy?.address ?? null) : null,
    });
    return runDiagnostics(deps, { signal });
  }

  // ---- services and service tunnels (engine/services.ts, engine/service-tunnels.ts) ----------

  async listServices() {
    return { services: await this.services.list() };
  }

  addService(request: AddDestinationSetRequest): Promise<DestinationSet> {
    return this.services.add(request);
  }

  removeService(name: string): Promise<void> {
    return this.services.remove(name);
  }

  // ---- split rules by domain (engine/split/split-rule-commands.ts) ------------------------------

  listSplitRules() {
    return this.#splitRules.list();
  }

  addSplitRule(request: SplitRule): Promise<SplitRule> {
    return this.#splitRules.add(request);
  }

  removeSplitRule(target: SplitRuleTarget): Promise<void> {
    return this.#splitRules.remove(target);
  }

  splitExec(request: { pid: number; via: SplitVia }): Promise<void> {
    return this.#splitRules.exec(request.pid, request.via);
  }

  async startTunnel(request: StartTunnelRequest, signal?: AbortSignal): Promise<ServiceTunnel> {
    this.checkOpen();
    return this.serviceTunnels.start(request, signal);
  }

  async listTunnels() {
    return { tunnels: this.serviceTunnels.list() };
  }

  stopTunnel(tag: string): Promise<StopTunnelResponse> {
    return this.serviceTunnels.stop(tag);
  }

  // ---- lifetime -----------------------------------------------------------------------------

  /** The engine's background work under way (a relay list being fetched) has settled. */
  backgroundSettled(): Promise<void> {
    return this.#ctx.listRefresh.settled();
  }

  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#connection.stop();
    // The programs' table stays: a `tunnel` program still running must not get out without us.
    await this.#ctx.apps?.stop().catch(() => undefined);
    try {
      // Independent of the main tunnel, not of the engine's lifetime: removed here and there.
      await this.serviceTunnels.stopAll({ unregister: true });
    } finally {
      await this.#ctx.ops.run(() => this.#connection.disconnectNow('shutdown'));
      // A relay list being fetched is written before the engine is gone.
      await this.#ctx.listRefresh.settled();
    }
    this.#ctx.closeListeners();
  }

  private checkOpen(): void {
    if (this.#closed) throw new FerryError('superseded', 'the engine is shutting down');
  }
}
