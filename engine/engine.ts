// The client engine: the connection's state machine driven by the connect flow (the control
// plane's connect answer, this device's keys, the tunnel manager), the configuration, the
// sign-in, region rules and the account's devices. Hosts (netcli daemon, Electron main) reach
// it through EngineApi; it knows nothing of HTTP, IPC or the OS beyond its seams.
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  ApiError,
  MODE_OF_USAGE,
  createControlClient,
  idleStatus,
  INSECURE_SERVICE_MESSAGE,
  serviceIsInsecure,
  latencyText,
  type ClientConfig,
  type ConfigChangeResult,
  type ConfigKey,
  type ConnectResponse,
  type ControlClient,
  type Device,
  type DeviceKind,
  type DiagnosticsReport,
  type FetchLike,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalConnectRequest,
  type LocalConnectResponse,
  type LocalSession,
  type LocalStatus,
  type Mode,
  type Notice,
  type PlatformTable,
  findPlatform,
  type ProtectionStatus,
  type RegionRule,
  type AddServiceRequest,
  type Service,
  type ServiceTunnel,
  type StartTunnelRequest,
  type StopTunnelResponse,
  type Usage,
} from '../contracts/index.js';
import { CONFIG_CHANGE_EFFECT, SHIPPED_PLATFORMS } from '../contracts/index.js';
import { ConfigStore, type ConfigChange } from './config-store.js';
import {
  ConnectionStateMachine,
  type ConnectTarget,
  type ConnectionSnapshot,
  type ConnectReason,
} from './connection-state.js';
import { IntentStore } from './connection-intent.js';
import type { EngineApi, EngineEvent } from './engine-api.js';
import { FerryError } from './errors.js';
import { HostAddresses, systemLookup, type LookupAll } from './host-addresses.js';
import { KeyStore, type FerryKeys } from './key-store.js';
import { LatencyReporter } from './latency-report.js';
import { isThisMachine } from './local-node.js';
import { obfuscationNotice, transportAttempts } from './obfuscation.js';
import type { OsEffects } from './os/effects.js';
import type { NetworkWatch } from './os/network-watch.js';
import { allowedNodes, NodeLatencies } from './node-latencies.js';
import { OperationQueue, throwIfAborted } from './operation-queue.js';
import {
  ConnectionGuard,
  dnsServers,
  guardSettings,
  type GuardFacts,
} from './protection/connection-guard.js';
import type { Endpoint } from './protection/firewall-policy.js';
import { Protection } from './protection/protection.js';
import { SplitChoice } from './split/split-choice.js';
import { GeoSplitTunnel, type SplitSets, type SplitTunnelSource } from './split/split-tunnel.js';
import { Recovery, type RecoveryTiming } from './recovery.js';
import { RuleStore, resolveRegionChoice } from './region-rules.js';
import { ServiceTunnels } from './service-tunnels.js';
import { ServiceStore, systemResolveIpv4, type ResolveIpv4 } from './services.js';
import { SessionStore } from './session-store.js';
import { loadPlatformTable, runStreamTest } from './stream-test.js';
import { diagnoseDeps } from './diagnose/engine-deps.js';
import type { HostProbes } from './diagnose/host-probes.js';
import { runDiagnostics } from './diagnose/run.js';
import { tunnelInterfaceName } from './tunnel/names.js';
import type { ActiveTunnel, TunnelManager } from './tunnel/tunnel.js';
import { TunnelKeyStore } from './tunnel-keys.js';
import {
  parseWgQuickConfig,
  WgQuickConfigError,
  writeWgQuickConfig,
  type WgQuickConfig,
} from './wg-quick-config.js';
import { generateWireguardPrivateKey, wireguardPublicKey } from './wireguard-keys.js';

export interface EngineDeps {
  stateDir: string;
  /** The control plane's transport (global fetch in a host; a fake or app.inject in tests). */
  fetch: FetchLike;
  /** Whether a node's endpoint is this machine (default: its interfaces' addresses). */
  isThisMachine?: (host: string) => Promise<boolean>;
  /** Drops the transport's pooled connections: called whenever a tunnel came or went. */
  resetConnections?: () => void;
  /**
   * The CA certificates (PEM) the transport trusts for the control plane besides the system's
   * (null: the system's only); told before each call, so a change of the setting holds at once.
   */
  trustServiceCa?: (pem: string | null) => void;
  tunnels: TunnelManager;
  /** Key generation for the Ferry keys (the native data plane, or its fake). */
  ferryKeys: FerryKeys;
  /** A fresh interface name for each tunnel (default: tunnelInterfaceName('main')). */
  interfaceName?: () => string;
  /** The name a new sign-in gives this device (default: the host name). */
  deviceName?: () => string;
  deviceKind?: DeviceKind;
  /** Time limit of a control-plane call (default 10 s). */
  controlTimeoutMs?: number;
  /** Time limit of the exit-address checks before and after the tunnel (default 4 s). */
  exitCheckTimeoutMs?: number;
  /** The streaming platforms stream-test knows (default: the shipped table). */
  platforms?: PlatformTable;
  /** Time limit of one stream-test's probe (default 10 s). */
  streamProbeTimeoutMs?: number;
  /** A domain's IPv4 addresses, for service tunnels (default: the system resolver). */
  resolveIpv4?: ResolveIpv4;
  /** A fresh interface name for a service tunnel's tag (default: tunnelInterfaceName(tag)). */
  serviceInterfaceName?: (tag: string) => string;
  /**
   * The OS seams of the protections: the kill switch's nftables table, the split tunnel's
   * policy rule and kernel setting, the system resolver, and the links (the LAN's subnets).
   */
  os: Pick<OsEffects, 'firewall' | 'routes' | 'links' | 'resolver' | 'sysctl'>;
  /** Split tunneling's data (none: split auto tunnels everything, with a notice). */
  split?: SplitTunnelSource;
  /** Host names' addresses (the control plane's, a node's); default: the system resolver. */
  lookupHost?: LookupAll;
  /** How long UDP gets under obfuscation auto before TCP is tried (default UDP_ATTEMPT_MS). */
  udpAttemptMs?: number;
  /** The pauses of failover's attempts. */
  recovery?: Partial<RecoveryTiming>;
  /** Changes of the host's network (default: none are watched). */
  networkWatch?: NetworkWatch;
  /** The diagnostics' probes of the host's network (default: the real ones). */
  diagnoseProbes?: Partial<HostProbes>;
}

/** What a connect is for, beyond its request. */
interface ConnectOptions {
  reason: ConnectReason;
  /** Failover: the lost and unreachable nodes, passed over; the lost tunnel goes first. */
  unreachable?: string[];
  /** Part of a recovery: a failure leaves the engine reconnecting (the recovery goes on). */
  recovering?: boolean;
}

/**
 * Keepalives of the main tunnel every second: Ferry's carry its round trip, so a silent node is
 * noticed within about two of them, and failover starts at once.
 */
const LIVENESS_KEEPALIVE_SECONDS = 1;

/** How long stream mode waits for one of its platform's names to resolve. */
const PLATFORM_LOOKUP_MS = 2_000;

/** How long a failover's attempt waits for a node (a user's connect waits the manager's 10 s). */
const RECOVERY_ATTEMPT_MS = 4_000;

/** The parts of a connection the state machine does not hold, for the status. */
interface Connection {
  answer: ConnectResponse;
  tunnel: ActiveTunnel;
  stopEvents: () => void;
  transport: 'udp' | 'tcp';
  /** Tells the control plane this tunnel's latency (its GET /status shows it). */
  reporter: LatencyReporter;
}

/** What a connect asked for beyond the configuration (kept for reconnects). */
type Overrides = Partial<Pick<ClientConfig, 'protocol' | 'encryption' | 'region' | 'mode'>> & {
  /** Stream mode's platform: kept with the mode, for reconnects. */
  platform?: string;
};

/** The engine's failure for what stopped a connect, user-safe. */
function failureOf(e: unknown): { code: string; message: string } {
  if (e instanceof FerryError) return { code: e.code, message: e.message };
  if (e instanceof ApiError) return { code: String(e.code), message: e.detail };
  return { code: 'internal', message: 'the connection failed unexpectedly' };
}

export class Engine implements EngineApi {
  readonly config: ConfigStore;
  readonly keys: KeyStore;
  readonly sessions: SessionStore;
  readonly rules: RuleStore;
  readonly services: ServiceStore;
  readonly serviceTunnels: ServiceTunnels;
  readonly #machine = new ConnectionStateMachine();
  readonly #ops = new OperationQueue();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  #connection: Connection | null = null;
  #overrides: Overrides = {};
  #exitAfter: string | null = null;
  #notices: Notice[] = [];
  #signedIn = false;
  #serviceConfigured = false;
  /** Plain HTTP to a control plane on the network, which the user accepted (status says so). */
  #serviceInsecure = false;
  #closed = false;
  /** The address the service saw before the tunnel (the home country's evidence). */
  #exitBefore: string | null = null;
  /** The node of the connect attempt under way (failover passes over it when it fails). */
  #attemptNode: string | null = null;
  readonly #split: SplitChoice;
  /** The node whose tunnel was lost, while the recovery replaces it (for the failover notice). */
  #lostNode: string | null = null;
  readonly guard: ConnectionGuard;
  readonly #latencies: NodeLatencies;
  readonly #hosts: HostAddresses;
  readonly #recovery: Recovery;
  readonly #intent: IntentStore;
  #unwatch: (() => void) | null = null;

  constructor(private readonly deps: EngineDeps) {
    this.config = new ConfigStore(deps.stateDir);
    this.keys = new KeyStore({ stateDir: deps.stateDir, ferryKeys: deps.ferryKeys });
    this.sessions = new SessionStore(deps.stateDir);
    this.rules = new RuleStore(deps.stateDir);
    this.services = new ServiceStore(deps.stateDir);
    this.serviceTunnels = new ServiceTunnels({
      control: () => this.control(),
      device: async () => (await this.requireSession()).device,
      config: () => this.config.load(),
      rules: () => this.rules.list(),
      services: this.services,
      keys: new TunnelKeyStore({ stateDir: deps.stateDir, ferryKeys: deps.ferryKeys }),
      tunnels: deps.tunnels,
      resolve: deps.resolveIpv4 ?? systemResolveIpv4,
      isThisMachine: (host) => (deps.isThisMachine ?? isThisMachine)(host),
      ...(deps.serviceInterfaceName ? { interfaceName: deps.serviceInterfaceName } : {}),
      allowEndpoints: (tag, endpoints) => this.guard.serviceTunnel(tag, endpoints),
      ...(deps.resetConnections ? { resetConnections: deps.resetConnections } : {}),
    });
    this.#machine.on(() => this.emit({ type: 'status', status: this.status() }));
    this.guard = new ConnectionGuard({
      protection: new Protection(deps.os),
      resolver: deps.os.resolver,
      links: deps.os.links,
    });
    this.#latencies = new NodeLatencies(this.guard);
    this.#split = new SplitChoice(deps.split);
    this.#hosts = new HostAddresses(deps.lookupHost);
    this.#intent = new IntentStore(deps.stateDir);
    this.#recovery = new Recovery({
      attempt: (unreachable) => this.recoverOnce(unreachable),
      ...(deps.recovery ? { timing: deps.recovery } : {}),
    });
  }

  /** Reads the state dir (so the status is right from the start) and removes a crash's leftovers. */
  async start(): Promise<void> {
    const [config, session] = await Promise.all([this.config.load(), this.sessions.info()]);
    this.noteService(config);
    this.#signedIn = session !== null;
    await this.deps.tunnels.cleanupLeftovers();
    this.#unwatch = this.deps.networkWatch?.watch(() => this.onNetworkChange()) ?? null;
    // What a crash left: the kill switch's rules (still in the kernel, still blocking) and the
    // resolver. The user who was connected is connected again, under the same protections; an
    // attempt that fails leaves the engine in error, blocking until the user disconnects.
    const intent = session ? await this.#intent.read() : null;
    if (intent && config.service !== null) {
      void this.connect(intent.overrides as LocalConnectRequest, undefined, 'auto-connect').catch(
        () => undefined,
      );
      return;
    }
    await this.#intent.clear().catch(() => undefined);
    await this.guard.update({
      stage: 'off',
      ...guardSettings(config),
      controlPlane: await this.controlEndpoints(config).catch(() => []),
    });
    await this.guard.restoreResolver();
  }

  // ---- status and events ----------------------------------------------------------------------

  status(): LocalStatus {
    const snap = this.#machine.snapshot;
    const c = this.#connection;
    const base = idleStatus(
      this.#signedIn,
      this.#serviceConfigured,
      this.protectionStatus(),
      this.#serviceInsecure,
    );
    const tunnel = snap.tunnel;
    return {
      ...base,
      status: snap.state,
      latency: snap.latencyMs === null ? null : latencyText(snap.latencyMs),
      region: tunnel?.region ?? snap.target?.region ?? null,
      node:
        c && tunnel
          ? {
              id: c.answer.node.id,
              region: c.answer.node.region,
              endpoint: `${c.answer.node.endpoint_host}:${
                c.answer.protocol === 'ferry'
                  ? c.answer.node.ferry_port
                  : c.answer.node.wireguard_port
              }`,
            }
          : null,
      protocol: tunnel?.protocol ?? null,
      cipher: tunnel?.cipher ?? null,
      mode: snap.target?.mode ?? null,
      platform: snap.target?.platform ?? null,
      transport: tunnel && c ? c.transport : null,
      interface: tunnel?.interfaceName ?? null,
      error: snap.error,
      notices: snap.state === 'disconnected' ? [] : [...this.#notices],
    };
  }

  /** What protects the connection right now, from the facts the guard holds. */
  private protectionStatus(): ProtectionStatus {
    const facts = this.guard.facts;
    const policy = this.guard.policy;
    return {
      kill_switch: !facts.killSwitch ? 'off' : policy?.block ? 'active' : 'armed',
      lockdown: facts.lockdown,
      split: facts.split ? 'by-country' : this.#split.notice ? 'unavailable' : 'off',
      home_country: facts.split ? this.#split.home : null,
      dns: facts.stage === 'connected' || facts.stage === 'reconnecting' ? [...facts.dns] : [],
    };
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  private emit(event: EngineEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A face's listener failing must not stop the engine or the other faces.
      }
    }
  }

  // ---- the control plane --------------------------------------------------------------------

  /** What the status says of the configured service, and how the transport trusts it. */
  private noteService(config: ClientConfig): void {
    this.#serviceConfigured = config.service !== null;
    this.#serviceInsecure = serviceIsInsecure(config) && config.service_insecure;
    this.deps.trustServiceCa?.(config.service_ca);
  }

  private async control(): Promise<ControlClient> {
    const config = await this.config.load();
    this.noteService(config);
    if (config.service === null) {
      throw new FerryError(
        'service-not-configured',
        'no service is configured: run netcli init --endpoint <url>',
      );
    }
    // A file written before https was required may name plain http: never used without consent.
    if (serviceIsInsecure(config) && !config.service_insecure)
      throw new FerryError('service-insecure', INSECURE_SERVICE_MESSAGE);
    return createControlClient({
      baseUrl: config.service,
      fetch: this.deps.fetch,
      token: () => this.sessions.token(),
      timeoutMs: this.deps.controlTimeoutMs ?? 10_000,
    });
  }

  private async requireSession(): Promise<{ accountNumber: string; device: Device }> {
    const session = await this.sessions.info();
    this.#signedIn = session !== null;
    if (!session) {
      throw new FerryError(
        'not-signed-in',
        'this device is not signed in: run netcli account create, or netcli login <number>',
      );
    }
    return session;
  }

  /** The address the service sees, or null when it could not be asked (never fatal). */
  private async exitAddress(control: ControlClient, signal: AbortSignal): Promise<string | null> {
    try {
      const answer = await control.whoami({
        signal,
        timeoutMs: this.deps.exitCheckTimeoutMs ?? 4_000,
      });
      return answer.ip;
    } catch {
      return null;
    }
  }

  // ---- connect and disconnect -----------------------------------------------------------------

  async connect(
    request: LocalConnectRequest,
    signal?: AbortSignal,
    reason: ConnectReason = 'user-connect',
  ): Promise<LocalConnectResponse> {
    this.checkOpen();
    // The user (or a start after a crash) decides now: a recovery under way ends.
    this.#recovery.stop();
    return this.#ops.run(async (opSignal) => {
      await this.#intent.save({ overrides: { ...request } as Record<string, string> });
      return this.connectNow(request, opSignal, { reason });
    }, signal);
  }

  /**
   * After sleep, a link down and up, a new address or default route: a recovery under way tries
   * again at once, and the links the protections follow (the LAN, DHCP's) are read again.
   */
  private onNetworkChange(): void {
    if (this.#closed) return;
    this.#recovery.hurry();
    const facts = this.guard.facts;
    if (facts.stage !== 'off' || facts.lockdown) void this.guard.update({}).catch(() => undefined);
  }

  /** One failover attempt of the recovery, in turn with the user's commands. */
  private async recoverOnce(unreachable: string[]): Promise<'recovered' | 'stop'> {
    return this.#ops.run(async (signal) => {
      if (this.#machine.state !== 'reconnecting') return 'stop';
      try {
        await this.connectNow({ ...this.#overrides }, signal, {
          reason: 'retry',
          unreachable,
          recovering: true,
        });
        return 'recovered';
      } catch (e) {
        if (signal.aborted) return 'stop';
        const failedNode = this.#attemptNode;
        if (failedNode) this.#recovery.markUnreachable(failedNode);
        this.#notices = [
          {
            code: 'reconnecting',
            message: `still reconnecting: ${failureOf(e).message}`,
          },
        ];
        this.emit({ type: 'status', status: this.status() });
        throw e;
      }
    });
  }

  private async target(request: LocalConnectRequest, config: ClientConfig) {
    if (request.mode && request.usage && MODE_OF_USAGE[request.usage] !== request.mode) {
      throw new FerryError(
        'config-invalid',
        `usage ${request.usage} means mode ${MODE_OF_USAGE[request.usage]}, not ${request.mode}`,
        {
          errors: [
            {
              field: 'mode',
              message: 'mode and usage disagree',
              allowed: [MODE_OF_USAGE[request.usage]],
            },
          ],
        },
      );
    }
    const platform = request.platform === undefined ? null : this.platformId(request.platform);
    const asked = request.mode ?? (request.usage ? MODE_OF_USAGE[request.usage] : undefined);
    if (platform !== null && asked !== undefined && asked !== 'stream') {
      throw new FerryError('config-invalid', `a platform is for stream mode, not ${asked}`, {
        errors: [{ field: 'mode', message: 'a platform means stream mode', allowed: ['stream'] }],
      });
    }
    // A platform means stream mode: the node must be verified for it.
    const mode: Mode = platform !== null ? 'stream' : (asked ?? config.mode);
    const usage: Usage = request.usage ?? (mode === 'stream' ? 'streaming' : 'remote-work');
    const region = resolveRegionChoice(request.region ?? config.region, await this.rules.list());
    const target: ConnectTarget = {
      region,
      protocol: request.protocol ?? config.protocol,
      encryption: request.encryption ?? config.encryption,
      mode,
      platform,
    };
    return { target, usage };
  }

  /** A platform as typed (its id, an alias, any letter case) as the table's id. */
  private platformId(typed: string): string {
    const table = this.deps.platforms ?? SHIPPED_PLATFORMS;
    const id = findPlatform(table, typed);
    if (id === undefined) {
      const ids = Object.keys(table).sort();
      throw new FerryError('config-invalid', `there is no platform ${typed}`, {
        errors: [
          { field: 'platform', message: `the platforms are ${ids.join(', ')}`, allowed: ids },
        ],
      });
    }
    return id;
  }

  private async connectNow(
    request: LocalConnectRequest,
    signal: AbortSignal,
    opts: ConnectOptions = { reason: 'user-connect' },
  ): Promise<LocalConnectResponse> {
    const config = await this.config.load();
    const control = await this.control();
    await this.requireSession();
    const { target, usage } = await this.target(request, config);
    const previous = this.#connection;
    // Switching a live connection goes through reconnecting (the kill switch holds); a tunnel
    // that was lost is already there; otherwise this is a new connection.
    if (this.#machine.state === 'connected') {
      this.#machine.dispatch({ type: 'tunnel-lost', reason: 'settings-changed', target });
    } else if (this.#machine.state !== 'reconnecting') {
      this.#machine.dispatch({ type: 'connect', reason: opts.reason, target });
    }
    this.#overrides = {
      ...(request.protocol ? { protocol: request.protocol } : {}),
      ...(request.encryption ? { encryption: request.encryption } : {}),
      ...(request.region ? { region: request.region } : {}),
      ...(request.mode || request.usage || request.platform ? { mode: target.mode } : {}),
      ...(target.platform ? { platform: target.platform } : {}),
    };
    this.#attemptNode = null;
    let tunnel: ActiveTunnel | null = null;
    try {
      // The protections hold before anything leaves, and until an explicit disconnect.
      await this.guard.update({
        stage: this.#machine.state === 'reconnecting' ? 'reconnecting' : 'connecting',
        ...guardSettings(config),
        controlPlane: await this.controlEndpoints(config),
        ...(target.platform ? {} : { pinned: [] }),
      });
      // A lost tunnel goes first: its routes would swallow the control plane's calls.
      if (previous && opts.unreachable) await this.teardown(previous);
      // Before: the address outside any tunnel (or the current tunnel's, when switching); and,
      // while no tunnel bends the path, fresh latencies for smart routing when there are none.
      const switching = this.#connection !== null;
      const [before] = await Promise.all([
        switching ? this.#exitAfter : this.exitAddress(control, signal),
        switching ? undefined : this.#latencies.refresh(control, signal),
      ]);
      const split = await this.#split.setsFor(config, switching ? this.#exitBefore : before);
      if (!switching) this.#exitBefore = before;
      const answer = await control.connect({
        body: {
          protocol: target.protocol,
          encryption: target.encryption,
          region: target.region,
          usage,
          ...(Object.keys(this.#latencies.smoothed).length > 0
            ? { latencies: { ...this.#latencies.smoothed } }
            : {}),
          ...(opts.unreachable?.length ? { unreachable: opts.unreachable } : {}),
          ...(target.platform ? { platform: target.platform } : {}),
        },
        signal,
      });
      throwIfAborted(signal);
      this.#attemptNode = answer.node.id;
      if (await (this.deps.isThisMachine ?? isThisMachine)(answer.node.endpoint_host)) {
        throw new FerryError(
          'node-is-local',
          `node ${answer.node.id} runs on this machine: a full tunnel to it would loop its own ` +
            'traffic back into the tunnel; connect from another machine (or try npm run demo, ' +
            'which puts the client in a namespace of its own)',
        );
      }
      // The old tunnel goes before the new one comes: one default route at a time.
      if (this.#connection) await this.teardown(this.#connection);
      const up = await this.bringUp(
        control,
        answer,
        config,
        target,
        usage,
        split,
        signal,
        opts.recovering ?? false,
      );
      tunnel = up.tunnel;
      this.deps.resetConnections?.();
      throwIfAborted(signal);
      const dns = dnsServers(config, up.answer);
      await this.guard.update({ stage: 'connected', dns });
      await this.guard.useResolver(dns, tunnel.interfaceName);
      // Stream mode: the platform's addresses (as the tunnel's resolver gives them) take the
      // tunnel even where the split tunnel would send them directly.
      if (target.platform && split)
        await this.guard.update({ pinned: await this.platformAddresses(target.platform) });
      const after = await this.exitAddress(control, signal);
      throwIfAborted(signal);
      const connection: Connection = {
        answer: up.answer,
        tunnel,
        transport: up.transport,
        stopEvents: () => undefined,
        reporter: new LatencyReporter((latency_ms, session_id) =>
          control.reportLatency({ body: { latency_ms, session_id }, timeoutMs: 5_000 }),
        ),
      };
      this.#connection = connection;
      this.#exitAfter = after;
      const notices = [...up.answer.notices, ...up.notices];
      const lost = opts.recovering ? this.#lostNode : null;
      if (lost !== null && lost !== up.answer.node.id) {
        notices.push({
          code: 'failover',
          message: `node ${lost} stopped answering: moved to node ${up.answer.node.id} (${up.answer.region})`,
        });
      }
      this.#lostNode = null;
      this.#recovery.forgetUnreachable();
      if (this.#split.notice) notices.push(this.#split.notice);
      this.#notices = notices;
      connection.stopEvents = tunnel.on((e) => this.onTunnelEvent(connection, e));
      this.#machine.dispatch({
        type: 'tunnel-up',
        tunnel: {
          nodeId: up.answer.node.id,
          region: up.answer.region,
          protocol: up.answer.protocol,
          cipher: up.answer.cipher,
          interfaceName: tunnel.interfaceName,
        },
        latencyMs: tunnel.latencyMs(),
      });
      connection.reporter.measured(tunnel.latencyMs(), up.answer.session_id);
      for (const notice of notices) this.emit({ type: 'notice', notice });
      return {
        ...this.status(),
        exit_ip: { before: switching ? this.#exitBefore : before, after },
        routing: up.answer.routing,
      };
    } catch (e) {
      if (this.#connection && this.#connection.tunnel !== tunnel) {
        // The previous tunnel is still up when the control plane refused: it goes too, so the
        // state says what is true (error, no tunnel).
        await this.teardown(this.#connection);
      }
      if (tunnel) await tunnel.close().catch(() => undefined);
      this.#connection = null;
      this.#exitAfter = null;
      await this.endControlSession(control);
      // Cancelled by a newer request or the caller: say that, not how the cancelled step ended.
      const error = signal.aborted && signal.reason instanceof FerryError ? signal.reason : e;
      if (opts.recovering) {
        // Still reconnecting: the recovery tries again, the kill switch holds meanwhile.
        await this.guard.update({ stage: 'reconnecting', nodes: [] }).catch(() => undefined);
      } else {
        if (this.#machine.allows('fail')) {
          this.#machine.dispatch({ type: 'fail', error: failureOf(error) });
        }
        await this.holdAfterFailure(config);
      }
      throw error;
    }
  }

  /**
   * After a failed connect: the kill switch holds (error) until the user disconnects; without
   * it, the host is left as it was before connecting.
   */
  private async holdAfterFailure(config: ClientConfig): Promise<void> {
    await this.guard.update({ stage: 'error', nodes: [], dns: [] }).catch(() => undefined);
    if (!config.kill_switch) await this.guard.restoreResolver().catch(() => undefined);
  }

  /**
   * The tunnel for a connect answer, over the transports obfuscation allows, in order: UDP
   * first and Ferry over TCP when UDP got no answer (auto). WireGuard falls back to Ferry over
   * TCP through a new connect answer for Ferry; the user's protocol setting stays as it is.
   */
  private async bringUp(
    control: ControlClient,
    first: ConnectResponse,
    config: ClientConfig,
    target: ConnectTarget,
    usage: Usage,
    split: SplitSets | null,
    signal: AbortSignal,
    recovering: boolean,
  ): Promise<{
    tunnel: ActiveTunnel;
    answer: ConnectResponse;
    transport: 'udp' | 'tcp';
    notices: Notice[];
  }> {
    const hasFerry = first.node.ferry_port !== null && first.node.ferry_public_key !== null;
    const attempts = transportAttempts(
      first.protocol,
      hasFerry,
      config.obfuscation,
      this.deps.udpAttemptMs,
    ).map((a) =>
      // A failover does not wait long for a node that may be down too: the next one is tried.
      recovering && a.timeoutMs === undefined ? { ...a, timeoutMs: RECOVERY_ATTEMPT_MS } : a,
    );
    const endpoint = await this.nodeAddress(first);
    // Every transport this connect may use is let out now: one change of the table, not one per try.
    await this.guard.update({
      nodes: attempts.map((a) => ({
        address: endpoint,
        port: a.protocol === 'ferry' ? first.node.ferry_port! : first.node.wireguard_port,
        protocol: a.transport,
      })),
      split,
    });
    let lastError: unknown;
    for (const [i, attempt] of attempts.entries()) {
      let answer = first;
      let address = endpoint;
      if (attempt.protocol !== first.protocol) {
        // A session for Ferry: the control plane keeps the device on its node when it can.
        answer = await control.connect({
          body: {
            protocol: attempt.protocol,
            encryption: target.encryption,
            region: first.node.region,
            usage,
            latencies: { [first.node.id]: this.#latencies.smoothed[first.node.id] ?? 0 },
            ...(target.platform ? { platform: target.platform } : {}),
          },
          signal,
        });
        this.#attemptNode = answer.node.id;
        if (answer.node.id !== first.node.id) {
          address = await this.nodeAddress(answer);
          await this.guard.update({
            nodes: [{ address, port: answer.node.ferry_port ?? 0, protocol: attempt.transport }],
          });
        }
      }
      try {
        const tunnel = await this.deps.tunnels.up(
          {
            answer: {
              ...answer,
              node: { ...answer.node, endpoint_host: address },
              // A lower MTU of the user's (a path that drops large packets), never a higher one.
              tunnel: {
                ...answer.tunnel,
                mtu:
                  config.mtu === 'auto'
                    ? answer.tunnel.mtu
                    : Math.min(config.mtu, answer.tunnel.mtu),
              },
            },
            privateKey: await this.keys.privateKey(answer.protocol),
            transport: attempt.transport,
            routes: { kind: 'all' },
            interfaceName: this.deps.interfaceName?.() ?? tunnelInterfaceName('main'),
            keepaliveSeconds: LIVENESS_KEEPALIVE_SECONDS,
            ...(attempt.timeoutMs === undefined ? {} : { timeoutMs: attempt.timeoutMs }),
          },
          signal,
        );
        // Said when the tunnel is not what the user chose: WireGuard became Ferry, or UDP TCP.
        const notices =
          attempt.protocol !== target.protocol ||
          (attempt.transport === 'tcp' && config.obfuscation === 'auto')
            ? [obfuscationNotice(target.protocol, config.obfuscation)]
            : [];
        return { tunnel, answer, transport: attempt.transport, notices };
      } catch (e) {
        lastError = e;
        // Only a node that never answered over UDP is worth trying over TCP.
        const silent = e instanceof FerryError && e.code === 'node-unreachable';
        if (!silent || i === attempts.length - 1 || signal.aborted) throw e;
      }
    }
    throw lastError;
  }

  /**
   * A platform's IPv4 addresses: its probe URL's host and its domains, looked up through the
   * tunnel's resolver (each bounded; a name that does not resolve pins nothing).
   */
  private async platformAddresses(id: string): Promise<string[]> {
    const def = (this.deps.platforms ?? SHIPPED_PLATFORMS)[id];
    if (!def) return [];
    const hosts = [new URL(def.probe.url).hostname.replace(/^\[(.*)\]$/, '$1'), ...def.domains];
    const lookup = this.deps.lookupHost ?? systemLookup;
    const found = await Promise.all(
      hosts.map((h) =>
        isIP(h) !== 0
          ? [h]
          : Promise.race([
              lookup(h).catch(() => [] as string[]),
              new Promise<string[]>((r) => setTimeout(() => r([]), PLATFORM_LOOKUP_MS).unref()),
            ]),
      ),
    );
    return [...new Set(found.flat().filter((a) => isIP(a) === 4))];
  }

  /** The address the tunnel reaches the node at (the kill switch lets addresses out, not names). */
  private async nodeAddress(answer: ConnectResponse): Promise<string> {
    const addresses = await this.#hosts.resolve(answer.node.endpoint_host);
    return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
  }

  /** The control plane's addresses and port, for the kill switch. */
  private async controlEndpoints(config: ClientConfig): Promise<Endpoint[]> {
    if (config.service === null) return [];
    const url = new URL(config.service);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = await this.#hosts.resolve(host);
    return addresses.map((address) => ({ address, port, protocol: 'tcp' as const }));
  }

  private onTunnelEvent(
    connection: Connection,
    e: Parameters<Parameters<ActiveTunnel['on']>[0]>[0],
  ) {
    if (this.#connection !== connection) return;
    switch (e.type) {
      case 'latency':
        this.#machine.dispatch({ type: 'latency', latencyMs: e.ms });
        connection.reporter.measured(e.ms, connection.answer.session_id);
        break;
      case 'lost':
        if (this.#machine.state === 'connected') {
          this.#machine.dispatch({ type: 'tunnel-lost', reason: 'node-unreachable' });
          // The kill switch holds; the node is passed over and the next best one taken.
          void this.guard.update({ stage: 'reconnecting' }).catch(() => undefined);
          this.#recovery.markUnreachable(connection.answer.node.id);
          this.#lostNode = connection.answer.node.id;
          void this.#recovery.start();
        }
        break;
      case 'restored':
        if (this.#machine.state === 'reconnecting') {
          this.#recovery.stop();
          void this.guard.update({ stage: 'connected' }).catch(() => undefined);
          const snap = this.#machine.snapshot;
          this.#machine.dispatch({
            type: 'tunnel-up',
            tunnel: {
              nodeId: connection.answer.node.id,
              region: connection.answer.region,
              protocol: connection.answer.protocol,
              cipher: connection.answer.cipher,
              interfaceName: connection.tunnel.interfaceName,
            },
            latencyMs: snap.latencyMs ?? connection.tunnel.latencyMs(),
          });
        }
        break;
      case 'rekey':
        break;
    }
  }

  private async teardown(connection: Connection): Promise<void> {
    connection.stopEvents();
    connection.reporter.stop();
    try {
      await connection.tunnel.close();
    } finally {
      this.deps.resetConnections?.();
    }
    if (this.#connection === connection) this.#connection = null;
  }

  /** Ends the control plane's session (best effort: the node forgets it anyway when idle). */
  private async endControlSession(control: ControlClient | null): Promise<void> {
    if (!control || !(await this.sessions.token())) return;
    await control.disconnect({ timeoutMs: 3_000 }).catch(() => undefined);
  }

  async disconnect(): Promise<LocalStatus> {
    this.checkOpen();
    this.#recovery.stop();
    return this.#ops.run(() => this.disconnectNow('user-disconnect'));
  }

  private async disconnectNow(
    reason: 'user-disconnect' | 'signed-out' | 'shutdown',
  ): Promise<LocalStatus> {
    if (this.#machine.state === 'disconnected') return this.status();
    this.#machine.dispatch({ type: 'disconnect', reason });
    const connection = this.#connection;
    let failure: unknown;
    try {
      if (connection) await this.teardown(connection);
    } catch (e) {
      failure = e;
    }
    this.#connection = null;
    this.#exitAfter = null;
    this.#notices = [];
    // Only now, with no tunnel left: the kill switch goes (or stays, with lockdown), and the
    // resolver comes back. A failure is reported, and what could not be removed keeps blocking.
    try {
      const config = await this.config.load().catch(() => null);
      await this.guard.update({
        stage: 'off',
        nodes: [],
        dns: [],
        pinned: [],
        ...(config ? guardSettings(config) : {}),
      });
      await this.guard.restoreResolver();
    } catch (e) {
      failure ??= e;
    }
    if (reason !== 'shutdown') await this.#intent.clear().catch(() => undefined);
    const control = await this.control().catch(() => null);
    await this.endControlSession(control);
    this.#machine.dispatch({ type: 'cleaned-up' });
    if (failure !== undefined) throw failure;
    return this.status();
  }

  // ---- configuration ------------------------------------------------------------------------

  getConfig(): Promise<ClientConfig> {
    return this.config.load();
  }

  patchConfig(patch: unknown): Promise<ConfigChangeResult> {
    return this.applyChange(() => this.config.patch(patch));
  }

  setConfigKey(key: string, value: string): Promise<ConfigChangeResult> {
    return this.applyChange(() => this.config.set(key, value));
  }

  /** The service and how it is trusted, all at once: what a previous init said is replaced. */
  init(request: {
    endpoint: string;
    protocol?: ClientConfig['protocol'] | undefined;
    ca?: string | undefined;
    insecure?: boolean | undefined;
  }) {
    return this.applyChange(() =>
      this.config.patch({
        service: request.endpoint,
        service_ca: request.ca ?? null,
        service_insecure: request.insecure ?? false,
        ...(request.protocol ? { protocol: request.protocol } : {}),
      }),
    );
  }

  /**
   * Saves a change, then makes a live tunnel follow it: a key whose change needs a new
   * session reconnects with the new value. A connect's own option for a key the user now names
   * is dropped (the user just said what they want), and when the live tunnel ran with a
   * different value than the saved one, it reconnects even though the file did not change.
   */
  private async applyChange(change: () => Promise<ConfigChange>): Promise<ConfigChangeResult> {
    const { config, changed, given } = await change();
    this.noteService(config);
    const overridden = (Object.keys(this.#overrides) as (keyof Overrides)[]).filter(
      (k): k is Exclude<keyof Overrides, 'platform'> =>
        k !== 'platform' && given.includes(k) && this.#overrides[k] !== config[k],
    );
    const reconnect = [
      ...new Set([
        ...changed.filter((k) => CONFIG_CHANGE_EFFECT[k] === 'reconnect'),
        ...overridden,
      ]),
    ];
    for (const key of given) delete this.#overrides[key as keyof Overrides & ConfigKey];
    // A mode set in the configuration ends a connect's stream mode for a platform too.
    if (given.includes('mode')) delete this.#overrides.platform;
    const live = this.#machine.state === 'connected' || this.#machine.state === 'reconnecting';
    if (live && reconnect.length > 0) {
      await this.connect({ ...this.#overrides });
      return { config, changed, effect: 'reconnected' };
    }
    const inPlace = changed.filter((k) => CONFIG_CHANGE_EFFECT[k] === 'live');
    if (inPlace.length === 0) return { config, changed, effect: 'saved' };
    const applied = await this.#ops.run(() => this.applyInPlace(config, inPlace));
    return { config, changed, effect: applied ? 'applied' : 'saved' };
  }

  /**
   * The protections follow a changed setting at once (kill switch, lockdown, LAN, split, DNS),
   * without a new session. Whether anything in force changed.
   */
  private async applyInPlace(config: ClientConfig, keys: readonly ConfigKey[]): Promise<boolean> {
    const stage = this.guard.facts.stage;
    const connection = this.#connection;
    const change: Partial<GuardFacts> = { ...guardSettings(config) };
    if (stage !== 'off' && keys.some((k) => k === 'split' || k === 'home_country' || k === 'dns'))
      change.split = await this.#split.setsFor(config, this.#exitBefore);
    if (connection && keys.includes('dns')) change.dns = dnsServers(config, connection.answer);
    await this.guard.update(change);
    if (connection && change.dns)
      await this.guard.useResolver(change.dns, connection.tunnel.interfaceName);
    return stage !== 'off' || config.lockdown || keys.includes('lockdown');
  }

  // ---- sign-in and the account ----------------------------------------------------------------

  async createAccount(request: {
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.checkOpen();
    return this.#ops.run(async () => {
      const control = await this.control();
      const account = await control.createAccount({
        body: request.password === undefined ? {} : { password: request.password },
      });
      return this.signIn(control, account.account_number, request.password, request.device_name);
    });
  }

  async login(request: {
    account_number: string;
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.checkOpen();
    return this.#ops.run(async () => {
      const control = await this.control();
      return this.signIn(control, request.account_number, request.password, request.device_name);
    });
  }

  /** Signs this host in as a new device (fresh keys); a current sign-in is ended first. */
  private async signIn(
    control: ControlClient,
    accountNumber: string,
    password: string | undefined,
    deviceName: string | undefined,
  ): Promise<LocalSession> {
    if (await this.sessions.info()) await this.signOut(control);
    const keys = await this.keys.renew();
    const session = await control.createSession({
      body: {
        account_number: accountNumber,
        ...(password === undefined ? {} : { password }),
        device: {
          name: deviceName ?? this.defaultDeviceName(),
          kind: this.deps.deviceKind ?? 'desktop',
          wireguard_public_key: keys.wireguard,
          ferry_public_key: keys.ferry,
        },
      },
    });
    const number = accountNumber.replace(/\D/g, '');
    await this.sessions.save(number, session.token, session.device);
    this.#signedIn = true;
    this.emit({ type: 'status', status: this.status() });
    return { account_number: number, device: session.device };
  }

  private defaultDeviceName(): string {
    const name = (this.deps.deviceName?.() ?? hostname()).replace(/[^\p{L}\p{N} ._-]/gu, '');
    return (name || 'desktop').slice(0, 64);
  }

  async logout(): Promise<{ signed_in: false }> {
    this.checkOpen();
    return this.#ops.run(async () => {
      const control = await this.control().catch(() => null);
      await this.signOut(control);
      return { signed_in: false as const };
    });
  }

  /** Disconnects, revokes this device (best effort: unreachable is no reason to stay in), forgets it. */
  private async signOut(control: ControlClient | null): Promise<void> {
    await this.disconnectNow('signed-out');
    // The service tunnels go with the device (the revocation removes them on the control plane).
    await this.serviceTunnels.stopAll({ unregister: false }).catch(() => undefined);
    const session = await this.sessions.info().catch(() => null);
    if (control && session) {
      await control
        .revokeDevice({ params: { id: session.device.id }, timeoutMs: 5_000 })
        .catch(() => undefined);
    }
    await this.sessions.clear();
    this.#signedIn = false;
    this.emit({ type: 'status', status: this.status() });
  }

  async account() {
    const control = await this.control();
    const session = await this.requireSession();
    const account = await control.getAccount();
    return { ...account, device: session.device };
  }

  async listDevices() {
    const control = await this.control();
    await this.requireSession();
    return control.listDevices();
  }

  /**
   * A phone or tablet for the official WireGuard apps, set up from this host: its key pair made
   * here in memory, the public key registered as a new device of the account (the plan's device
   * limit applies: the control plane's 409 device-limit passes on with its code), its config
   * asked for without the private key, which is filled in here. The key is in the answer and
   * nowhere else: not in the state directory, not in any message. When no config can be had the
   * new device is revoked again: its key ends with this call, so it could never be used.
   */
  async addDevice(request: LocalAddDeviceRequest): Promise<LocalAddDeviceResponse> {
    this.checkOpen();
    const control = await this.control();
    await this.requireSession();
    const config = await this.config.load();
    const region = resolveRegionChoice(request.region ?? config.region, await this.rules.list());
    const privateKey = generateWireguardPrivateKey();
    // A device record holds a Ferry key too; the official apps speak WireGuard only, so its
    // private half is dropped at once.
    const ferry = this.deps.ferryKeys;
    const device = await control.addDevice({
      body: {
        name: request.name,
        kind: request.kind,
        wireguard_public_key: wireguardPublicKey(privateKey),
        ferry_public_key: ferry.publicKey(ferry.generatePrivateKey()),
      },
    });
    try {
      const answer = await control.wireguardConfig({
        params: { id: device.id },
        body: {
          region,
          allow_lan: request.allow_lan,
          ...(request.dns === undefined ? {} : { dns: request.dns }),
        },
      });
      // Rebuilt from the fields read, never the service's text passed on (wg-quick runs a
      // PostUp as root): netcli's QR code and files and the app's all come from this.
      let fields: WgQuickConfig;
      try {
        fields = parseWgQuickConfig(answer.config);
      } catch (e) {
        if (!(e instanceof WgQuickConfigError)) throw e;
        throw new ApiError({
          code: 'bad-response',
          detail: `the service’s config for the device was refused: ${e.message}`,
          route: 'POST /devices/:id/wireguard-config',
          cause: e,
        });
      }
      return { device, config: writeWgQuickConfig(fields, privateKey), region: answer.region };
    } catch (e) {
      await control
        .revokeDevice({ params: { id: device.id }, timeoutMs: 5_000 })
        .catch(() => undefined);
      throw e;
    }
  }

  async renameDevice(id: string, name: string): Promise<Device> {
    const control = await this.control();
    await this.requireSession();
    const device = await control.renameDevice({ params: { id }, body: { name } });
    if (device.current) await this.sessions.updateDevice(device);
    return device;
  }

  async revokeDevice(id: string): Promise<void> {
    const control = await this.control();
    const session = await this.requireSession();
    if (id === session.device.id) {
      await this.logout();
      return;
    }
    await control.revokeDevice({ params: { id } });
  }

  // ---- regions ------------------------------------------------------------------------------

  async listRegions() {
    const control = await this.control();
    await this.requireSession();
    const [{ regions }, { nodes }, rules] = await Promise.all([
      control.listRegions(),
      control.listNodes(),
      this.rules.list(),
    ]);
    const snap = this.#machine.snapshot;
    return {
      regions: regions.map((r) => ({
        ...r,
        // Measured latency per region comes with the latency probes; until one ran, the
        // current tunnel's measurement is the only one there is.
        latency: this.regionLatency(r.id, nodes, snap),
      })),
      rules,
    };
  }

  /** A region's latency: the tunnel's while connected there, else its best node's probes. */
  private regionLatency(
    region: string,
    nodes: readonly { id: string; region: string }[],
    snap: ConnectionSnapshot,
  ): string | null {
    if (snap.tunnel?.region === region && snap.latencyMs !== null)
      return latencyText(snap.latencyMs);
    return this.#latencies.ofRegion(region, nodes);
  }

  async addRegionRule(request: {
    area: string;
    strategy: RegionRule['strategy'];
    name?: string | undefined;
  }): Promise<RegionRule> {
    const control = await this.control();
    await this.requireSession();
    const { regions } = await control.listRegions();
    const areas = [...new Set(regions.map((r) => r.area))].sort();
    if (!areas.includes(request.area)) {
      throw new FerryError('config-invalid', `there is no area ${request.area}`, {
        errors: [{ field: 'area', message: `the areas are ${areas.join(', ')}`, allowed: areas }],
      });
    }
    const name = request.name ?? request.area;
    if (regions.some((r) => r.id === name) || name === 'auto') {
      throw new FerryError(
        'config-invalid',
        `${name} is a region's name: give the rule another --name`,
        {
          errors: [{ field: 'name', message: 'a rule cannot take the name of a region or auto' }],
        },
      );
    }
    return this.rules.add({ name, area: request.area, strategy: request.strategy });
  }

  removeRegionRule(name: string): Promise<void> {
    return this.rules.remove(name);
  }

  /**
   * Average, jitter and loss from authenticated probes: to the current node, or with `all` to
   * every healthy node the plan allows, sorted (unanswered last). Feeds smart routing.
   */
  async latencyCheck(request: { all: boolean; count: number }) {
    const control = await this.control();
    await this.requireSession();
    const started = performance.now();
    const current = this.#connection?.answer.node.id;
    if (!request.all && !current) {
      throw new FerryError(
        'not-connected',
        'not connected: connect first, or measure every node with latency-check --all',
      );
    }
    const nodes = await allowedNodes(control);
    const chosen = request.all ? nodes : nodes.filter((n) => n.id === current);
    const results = await this.#latencies.measure(chosen, request.count);
    return { results, duration_ms: Math.round(performance.now() - started) };
  }

  // ---- stream-test --------------------------------------------------------------------------

  /** A streaming platform of the table asked through the tunnel: reachable, catalogue, verdict. */
  async streamTest(request: { platform: string }, signal?: AbortSignal) {
    this.checkOpen();
    const connection = this.#machine.state === 'connected' ? this.#connection : null;
    const control = connection ? await this.control() : null;
    const table = this.deps.platforms ?? SHIPPED_PLATFORMS;
    // Asked through the tunnel even where the split tunnel would send the platform directly:
    // its addresses are pinned to the tunnel while the test runs.
    const id = connection ? findPlatform(table, request.platform) : undefined;
    const pinnedBefore = this.guard.facts.pinned;
    const pin = id !== undefined && this.guard.facts.split !== null;
    if (pin) {
      const addresses = await this.platformAddresses(id);
      await this.guard.update({ pinned: [...new Set([...pinnedBefore, ...addresses])] });
    }
    try {
      return await runStreamTest({
        table,
        platform: request.platform,
        nodeRegion: connection?.answer.node.region ?? null,
        regions: async () => (control ? (await control.listRegions({ signal })).regions : []),
        signal,
        timeoutMs: this.deps.streamProbeTimeoutMs,
      });
    } finally {
      // Stream mode's own pins stay; what the test added goes.
      if (pin && this.guard.facts.pinned !== pinnedBefore)
        await this.guard.update({ pinned: pinnedBefore }).catch(() => undefined);
    }
  }

  // ---- diagnostics (engine/diagnose) --------------------------------------------------------

  /** Every check with its verdict and fix, from the engine's own parts (engine/diagnose). */
  async diagnose(signal?: AbortSignal): Promise<DiagnosticsReport> {
    this.checkOpen();
    const c = this.#machine.state === 'connected' ? this.#connection : null;
    const split = this.deps.split;
    const deps = await diagnoseDeps({
      status: this.status(),
      config: await this.config.load(),
      fetch: this.deps.fetch,
      token: () => this.sessions.token(),
      connection: c && {
        answer: c.answer,
        interfaceName: c.tunnel.interfaceName,
        transport: c.transport,
      },
      exitAfter: this.#exitAfter,
      latencies: { ...this.#latencies },
      guard: this.guard,
      os: this.deps.os,
      resolveHost: (host) => this.#hosts.resolve(host),
      split: split instanceof GeoSplitTunnel ? () => split.describe() : null,
      probes: this.deps.diagnoseProbes,
    });
    return runDiagnostics(deps, { signal });
  }

  // ---- services and service tunnels (engine/services.ts, engine/service-tunnels.ts) ----------

  async listServices() {
    return { services: await this.services.list() };
  }

  addService(request: AddServiceRequest): Promise<Service> {
    return this.services.add(request);
  }

  removeService(name: string): Promise<void> {
    return this.services.remove(name);
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

  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#recovery.stop();
    try {
      // Independent of the main tunnel, not of the engine's lifetime: removed here and there.
      await this.serviceTunnels.stopAll({ unregister: true });
    } finally {
      await this.#ops.run(() => this.disconnectNow('shutdown'));
    }
    this.#listeners.clear();
  }

  private checkOpen(): void {
    if (this.#closed) throw new FerryError('superseded', 'the engine is shutting down');
  }
}

/**
 * The engine as a host runs it: the control plane over the network, the real tunnel manager
 * (Linux links and routes, wireguard-go, the native Ferry data plane), started (leftovers of a
 * crash removed). The native addon is loaded here, only by hosts.
 */
export async function createEngine(opts: {
  stateDir: string;
  /** Lines `cidr,country` that take precedence over the shipped IP-to-country data. */
  geoipFile?: string | undefined;
  /** Platform entries that add to or replace the shipped table (netcli daemon --platforms-file). */
  platformsFile?: string | undefined;
}): Promise<Engine> {
  const platforms = await loadPlatformTable(opts.platformsFile);
  const [
    { nativeDataPlane },
    { createTunnelManager },
    { LinuxLinks },
    { LinuxRoutes },
    { createControlTransport },
    { NftFirewall },
    { LinuxSysctl },
    { ResolvConfResolver },
    { ResolvedResolver, usesSystemdResolved },
    { IpMonitorWatch },
  ] = await Promise.all([
    import('../native/index.js'),
    import('./tunnel/manager.js'),
    import('./os/links.js'),
    import('./os/routes.js'),
    import('./control-transport.js'),
    import('./os/firewall.js'),
    import('./os/sysctl.js'),
    import('./os/resolv-conf.js'),
    import('./os/resolved.js'),
    import('./os/network-watch.js'),
  ]);
  const transport = createControlTransport();
  const os = {
    links: new LinuxLinks(),
    routes: new LinuxRoutes(),
    firewall: new NftFirewall(),
    sysctl: new LinuxSysctl(),
    resolver: usesSystemdResolved()
      ? new ResolvedResolver()
      : new ResolvConfResolver({ savedFile: path.join(opts.stateDir, 'resolv.conf.saved') }),
  };
  const tunnels = createTunnelManager({ os, dataPlane: nativeDataPlane });
  const split = new GeoSplitTunnel({ overridesFile: opts.geoipFile });
  // A --geoip-file with a mistake stops the start, naming the line (not the first connect).
  if (opts.geoipFile !== undefined) split.describe();
  const engine = new Engine({
    os,
    split,
    networkWatch: new IpMonitorWatch(),
    stateDir: opts.stateDir,
    fetch: transport.fetch,
    resetConnections: () => transport.reset(),
    trustServiceCa: (pem) => transport.trust(pem),
    tunnels,
    ferryKeys: nativeDataPlane,
    platforms,
  });
  await engine.start();
  return engine;
}
