// An in-memory EngineApi with honest state (configuration, sign-in, devices, region rules, the
// connection's states), for the tests of the engine host and of netcli. No network, no OS.
import {
  ApiError,
  CONFIG_CHANGE_EFFECT,
  CLIENT_CONFIG_DEFAULTS,
  MODE_OF_USAGE,
  applyConfigPatch,
  findPlatform,
  idleStatus,
  serviceIsInsecure,
  setConfigValue,
  type ClientConfig,
  type ConfigChangeResult,
  type ConfigKey,
  type Device,
  type ListedDevice,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalConnectRequest,
  type LocalConnectResponse,
  type LocalSession,
  type LocalStatus,
  type NodeLatency,
  type Notice,
  type Region,
  type RegionRule,
  SHIPPED_PLATFORMS,
  diagnosticCheck,
  diagnosticsReport,
  type DiagnosticCheck,
  type DiagnosticCheckId,
  type PlatformTable,
  type AddServiceRequest,
  type StartTunnelRequest,
} from '../contracts/index.js';
import type { EngineApi, EngineEvent } from './engine-api.js';
import { FerryError } from './errors.js';
import { FakeServiceTunnels } from './service-tunnels.fake.js';
import { choosePlatform, streamVerdict, type ProbeOutcome } from './stream-test.js';
import { generateWireguardPrivateKey, wireguardPublicKey } from './wireguard-keys.js';

type Answer<K extends keyof EngineApi> = EngineApi[K] extends (...a: never[]) => infer R
  ? Awaited<R>
  : never;

interface FakeAccount {
  number: string;
  password: string | undefined;
  devices: Device[];
}

export const FAKE_REGIONS: readonly Region[] = [
  {
    id: 'global',
    name: 'Global',
    area: 'global',
    country: null,
    load: 0.4,
    nodes_healthy: 2,
    platforms_verified: [],
    allowed: true,
  },
  {
    id: 'asia-east',
    name: 'Asia East',
    area: 'asia',
    country: 'HK',
    load: 0.2,
    nodes_healthy: 1,
    platforms_verified: ['netflix'],
    allowed: true,
  },
  {
    id: 'europe-west',
    name: 'Europe West',
    area: 'europe',
    country: 'NL',
    load: 0.1,
    nodes_healthy: 1,
    platforms_verified: [],
    allowed: false,
  },
];

const NODE_OF_REGION: Readonly<Record<string, string>> = {
  global: 'zrh-1',
  'asia-east': 'hk-1',
  'europe-west': 'ams-1',
};

export const FAKE_DEVICE_LIMIT = 5;
export const FAKE_EXIT = { before: '198.18.5.10', after: '198.19.5.20' } as const;

let nextId = 1;

export class FakeEngine implements EngineApi {
  config: ClientConfig = { ...CLIENT_CONFIG_DEFAULTS };
  rules: RegionRule[] = [];
  readonly accounts = new Map<string, FakeAccount>();
  /** The signed-in account and this device's id. */
  session: { account: FakeAccount; deviceId: string } | null = null;
  shutdowns = 0;
  /** Connects whose caller's signal aborted while they were under way. */
  abortedConnects = 0;
  private current: LocalStatus = idleStatus(false, false);
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private gate: Promise<void> | null = null;
  private onHeldStart: (() => void) | null = null;

  // ---- test controls --------------------------------------------------------------------------

  /**
   * Makes the next connect wait (in `connecting`) until `release` is called or its signal
   * aborts; `started` resolves once it waits.
   */
  holdConnect(): { release: () => void; started: Promise<void> } {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const started = new Promise<void>((r) => (this.onHeldStart = r));
    this.gate = gate;
    return { release, started };
  }

  /** A notice, as the engine sends one (obfuscation fell back, a key rotated...). */
  notify(notice: Notice): void {
    this.current = { ...this.current, notices: [...this.current.notices, notice] };
    this.emit({ type: 'notice', notice });
  }

  /** The platform table stream-test knows (the shipped one unless a test adds entries). */
  platforms: PlatformTable = SHIPPED_PLATFORMS;
  /**
   * What each platform answers stream-test, by platform id; a platform without one answers 200
   * with the node country's markers of the shipped entries' body readers.
   */
  readonly streamAnswers = new Map<string, ProbeOutcome>();
  /** Checks diagnose reports instead of what the fake's state gives (a broken setup). */
  readonly diagnoseOverrides = new Map<DiagnosticCheckId, DiagnosticCheck>();

  get listenerCount(): number {
    return this.listeners.size;
  }

  // ---- status and events ----------------------------------------------------------------------

  status(): LocalStatus {
    return structuredClone(this.current);
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: EngineEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  private setStatus(next: Partial<LocalStatus>): void {
    this.current = {
      ...this.current,
      ...next,
      signed_in: this.session !== null,
      service_configured: this.config.service !== null,
      service_insecure: serviceIsInsecure(this.config) && this.config.service_insecure,
    };
    this.emit({ type: 'status', status: this.status() });
  }

  // ---- connection -----------------------------------------------------------------------------

  private requireService(): void {
    if (this.config.service === null)
      throw new FerryError('service-not-configured', 'no control plane is configured');
  }

  private requireSession(): { account: FakeAccount; deviceId: string } {
    this.requireService();
    if (!this.session) throw new FerryError('not-signed-in', 'this device is not signed in');
    return this.session;
  }

  private resolveRegion(choice: string): { region: string; strategy: string } {
    const rule = this.rules.find((r) => r.name === choice);
    const allowed = FAKE_REGIONS.filter((r) => r.allowed);
    if (rule) {
      const region = allowed.find((r) => r.area === rule.area);
      if (region) return { region: region.id, strategy: rule.strategy };
    }
    if (choice === 'auto') return { region: allowed[0]!.id, strategy: 'lowest-latency' };
    const region = FAKE_REGIONS.find((r) => r.id === choice);
    if (!region) {
      throw new ApiError({
        code: 'validation-failed',
        detail: 'invalid body: region',
        route: 'POST /connect',
        status: 400,
        errors: [
          {
            field: 'region',
            message: 'an existing region',
            allowed: ['auto', ...FAKE_REGIONS.map((r) => r.id)],
          },
        ],
      });
    }
    if (!region.allowed) {
      throw new ApiError({
        code: 'region-not-in-plan',
        detail: `your plan does not include ${region.id}`,
        route: 'POST /connect',
        status: 403,
      });
    }
    return { region: region.id, strategy: 'region' };
  }

  /**
   * When set, the next connect fails with it, leaving the engine in error as the real one does
   * (with the kill switch on, still blocking).
   */
  failNextConnect: FerryError | null = null;

  async connect(request: LocalConnectRequest, signal?: AbortSignal): Promise<LocalConnectResponse> {
    this.requireSession();
    const failure = this.failNextConnect;
    if (failure) {
      this.failNextConnect = null;
      this.setStatus({
        status: 'error',
        error: { code: failure.code, message: failure.message },
        protection: {
          ...this.current.protection,
          kill_switch: this.config.kill_switch ? 'active' : 'off',
        },
      });
      throw failure;
    }
    const protocol = request.protocol ?? this.config.protocol;
    // WireGuard always encrypts with ChaCha20-Poly1305, whatever was asked.
    const cipher =
      protocol === 'wireguard'
        ? 'ChaCha20-Poly1305'
        : (request.encryption ?? this.config.encryption);
    const platform = request.platform
      ? (findPlatform(this.platforms, request.platform) ?? null)
      : null;
    if (request.platform && platform === null)
      throw new FerryError('config-invalid', `there is no platform ${request.platform}`);
    const mode =
      platform !== null
        ? 'stream'
        : (request.mode ?? (request.usage ? MODE_OF_USAGE[request.usage] : this.config.mode));
    const { region, strategy } = this.resolveRegion(request.region ?? this.config.region);
    this.setStatus({ status: 'connecting', region, error: null });
    if (this.gate) {
      const gate = this.gate;
      this.gate = null;
      this.onHeldStart?.();
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(new FerryError('cancelled', 'the connect was cancelled'));
        if (signal?.aborted) fail();
        signal?.addEventListener('abort', fail, { once: true });
      });
      try {
        await Promise.race([gate, aborted]);
      } catch (e) {
        this.abortedConnects++;
        this.setStatus(idleStatus(false, false));
        throw e;
      }
    }
    const node = NODE_OF_REGION[region]!;
    this.setStatus({
      status: 'connected',
      latency: '12ms',
      region,
      node: { id: node, region, endpoint: `${node}.example:51820` },
      protocol,
      cipher,
      mode,
      platform,
      transport: 'udp',
      interface: 'ferry0',
      error: null,
      protection: {
        kill_switch: this.config.kill_switch ? 'active' : 'off',
        lockdown: this.config.lockdown,
        split: 'off',
        home_country: null,
        dns: ['10.64.0.1'],
      },
    });
    return {
      ...this.status(),
      exit_ip: { ...FAKE_EXIT },
      routing: {
        strategy,
        reasons: [`${node} has the lowest latency in ${region}`, `load ${region} 20%`],
      },
    };
  }

  async disconnect(): Promise<LocalStatus> {
    if (this.current.status !== 'disconnected') {
      this.setStatus({ status: 'disconnecting' });
      this.setStatus(idleStatus(false, false));
    }
    return this.status();
  }

  // ---- configuration --------------------------------------------------------------------------

  private applyChange(next: ClientConfig, changed: ConfigKey[]): ConfigChangeResult {
    this.config = next;
    let effect: ConfigChangeResult['effect'] = 'saved';
    if (this.current.status === 'connected' && changed.length > 0) {
      const effects = changed.map((k) => CONFIG_CHANGE_EFFECT[k]);
      if (effects.includes('reconnect')) {
        effect = 'reconnected';
        const protocol = next.protocol;
        this.setStatus({
          status: 'connected',
          protocol,
          cipher: protocol === 'wireguard' ? 'ChaCha20-Poly1305' : next.encryption,
          mode: next.mode,
        });
      } else if (effects.includes('live')) {
        effect = 'applied';
      }
    }
    if (changed.includes('service')) this.setStatus({});
    return { config: { ...next }, changed, effect };
  }

  async getConfig(): Promise<ClientConfig> {
    return { ...this.config };
  }

  async patchConfig(patch: Partial<ClientConfig>): Promise<ConfigChangeResult> {
    const r = applyConfigPatch(this.config, patch);
    if (!r.ok)
      throw new FerryError('config-invalid', 'a setting was refused', { errors: r.errors });
    return this.applyChange(r.config, r.changed);
  }

  async setConfigKey(key: string, value: string): Promise<ConfigChangeResult> {
    const r = setConfigValue(this.config, key, value);
    if (!r.ok) throw new FerryError('config-invalid', r.error.message, { errors: [r.error] });
    return this.applyChange(r.config, r.changed ? [r.key] : []);
  }

  async init(request: {
    endpoint: string;
    protocol?: ClientConfig['protocol'] | undefined;
    ca?: string | undefined;
    insecure?: boolean | undefined;
  }): Promise<ConfigChangeResult> {
    return this.patchConfig({
      service: request.endpoint,
      service_ca: request.ca ?? null,
      service_insecure: request.insecure ?? false,
      ...(request.protocol ? { protocol: request.protocol } : {}),
    });
  }

  // ---- account and devices --------------------------------------------------------------------

  private newDevice(name: string | undefined): Device {
    const n = nextId++;
    return {
      id: `dev${n}`,
      name: name ?? 'fake-host',
      kind: 'laptop',
      wireguard_public_key: Buffer.alloc(32, n).toString('base64'),
      ferry_public_key: Buffer.alloc(32, n + 100).toString('base64'),
      tunnel_ipv4: `10.64.0.${n + 1}`,
      tunnel_ipv6: `fd00:64::${n + 1}`,
      current: false,
    };
  }

  private sessionView(): LocalSession {
    const { account, deviceId } = this.session!;
    const device = account.devices.find((d) => d.id === deviceId)!;
    return { account_number: account.number, device: { ...device, current: true } };
  }

  private signIn(account: FakeAccount, deviceName: string | undefined): LocalSession {
    if (account.devices.length >= FAKE_DEVICE_LIMIT) {
      throw new ApiError({
        code: 'device-limit',
        detail: `the plan allows ${FAKE_DEVICE_LIMIT} devices`,
        route: 'POST /sessions',
        status: 409,
        problem: { devices: account.devices.map((d) => ({ id: d.id, name: d.name })) },
      });
    }
    const device = this.newDevice(deviceName);
    account.devices.push(device);
    this.session = { account, deviceId: device.id };
    this.setStatus({});
    return this.sessionView();
  }

  async createAccount(request: {
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.requireService();
    const number = String(1000_0000_0000_0000 + this.accounts.size * 7919 + 42);
    const account: FakeAccount = { number, password: request.password, devices: [] };
    this.accounts.set(number, account);
    return this.signIn(account, request.device_name);
  }

  async login(request: {
    account_number: string;
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.requireService();
    const account = this.accounts.get(request.account_number);
    if (!account || (account.password !== undefined && account.password !== request.password)) {
      throw new ApiError({
        code: 'invalid-credentials',
        detail: 'wrong account number or password',
        route: 'POST /sessions',
        status: 401,
      });
    }
    return this.signIn(account, request.device_name);
  }

  async logout(): Promise<{ signed_in: false }> {
    await this.disconnect();
    this.serviceTunnels.stopAll(false);
    if (this.session) {
      const { account, deviceId } = this.session;
      account.devices = account.devices.filter((d) => d.id !== deviceId);
      this.session = null;
      this.setStatus({});
    }
    return { signed_in: false };
  }

  async account(): Promise<Answer<'account'>> {
    const { account } = this.requireSession();
    const me = this.sessionView().device;
    return {
      account_number: account.number,
      plan: {
        id: 'basic',
        name: 'Basic',
        price_monthly_eur: 0,
        device_limit: FAKE_DEVICE_LIMIT,
        regions: FAKE_REGIONS.filter((r) => r.allowed).map((r) => r.id),
        data_cap_bytes: 10 * 1024 ** 3,
        bandwidth_limit_mbps: 100,
        protocols: ['wireguard', 'ferry'],
      },
      devices: { used: account.devices.length, limit: FAKE_DEVICE_LIMIT },
      usage: { period: '2026-05', bytes: 1536 * 1024 ** 2, data_cap_bytes: 10 * 1024 ** 3 },
      device: me,
    };
  }

  /**
   * The other devices' live state as the control plane would list it (a test control); a device
   * not in it is disconnected. This device's follows the fake's own connection.
   */
  readonly liveStates = new Map<string, Pick<ListedDevice, 'status' | 'latency' | 'region'>>();

  async listDevices(): Promise<Answer<'listDevices'>> {
    const { account, deviceId } = this.requireSession();
    const own = this.current;
    const ownState: Pick<ListedDevice, 'status' | 'latency' | 'region'> =
      own.status === 'connected'
        ? { status: 'connected', latency: own.latency, region: own.region }
        : own.status === 'connecting' || own.status === 'reconnecting'
          ? { status: 'connecting', latency: null, region: own.region }
          : { status: 'disconnected', latency: null, region: null };
    return {
      devices: account.devices.map((d) => ({
        ...d,
        current: d.id === deviceId,
        ...(d.id === deviceId
          ? ownState
          : (this.liveStates.get(d.id) ?? { status: 'disconnected', latency: null, region: null })),
      })),
    };
  }

  /** The private keys addDevice made, in order (the real engine keeps none: tests look). */
  readonly addedDeviceKeys: string[] = [];

  async addDevice(request: LocalAddDeviceRequest): Promise<LocalAddDeviceResponse> {
    const { account } = this.requireSession();
    if (account.devices.length >= FAKE_DEVICE_LIMIT) {
      throw new ApiError({
        code: 'device-limit',
        detail: `the plan allows ${FAKE_DEVICE_LIMIT} devices; revoke one to add this one`,
        route: 'POST /devices',
        status: 409,
        problem: {
          device_limit: FAKE_DEVICE_LIMIT,
          devices: account.devices.map((d) => ({ id: d.id, name: d.name })),
        },
      });
    }
    const { region } = this.resolveRegion(request.region ?? this.config.region);
    const privateKey = generateWireguardPrivateKey();
    this.addedDeviceKeys.push(privateKey);
    const device: Device = {
      ...this.newDevice(request.name),
      kind: request.kind,
      wireguard_public_key: wireguardPublicKey(privateKey),
    };
    account.devices.push(device);
    const node = NODE_OF_REGION[region]!;
    const dns = request.dns ?? ['10.64.0.1'];
    const config = [
      '[Interface]',
      `# Ferry: ${request.name}, node ${node} (${region})`,
      `PrivateKey = ${privateKey}`,
      `Address = ${device.tunnel_ipv4}/32, ${device.tunnel_ipv6}/128`,
      `DNS = ${dns.join(', ')}`,
      'MTU = 1420',
      '',
      '[Peer]',
      `PublicKey = ${Buffer.alloc(32, 7).toString('base64')}`,
      // The fake's short stand-in for the LAN-less list the control plane computes.
      `AllowedIPs = ${request.allow_lan ? '0.0.0.0/5, 8.0.0.0/7, 11.0.0.0/8, 10.64.0.1/32' : '0.0.0.0/0, ::/0'}`,
      `Endpoint = ${node}.example:51820`,
      'PersistentKeepalive = 25',
      '',
    ].join('\n');
    return { device, config, region };
  }

  private device(id: string): Device {
    const { account } = this.requireSession();
    const device = account.devices.find((d) => d.id === id);
    if (!device) {
      throw new ApiError({
        code: 'not-found',
        detail: 'no such device on this account',
        route: 'PATCH /devices/:id',
        status: 404,
      });
    }
    return device;
  }

  async renameDevice(id: string, name: string): Promise<Device> {
    const device = this.device(id);
    device.name = name;
    return { ...device, current: device.id === this.session?.deviceId };
  }

  async revokeDevice(id: string): Promise<void> {
    const device = this.device(id);
    if (device.id === this.session?.deviceId) {
      await this.logout();
      return;
    }
    const { account } = this.session!;
    account.devices = account.devices.filter((d) => d.id !== id);
  }

  // ---- regions and latency --------------------------------------------------------------------

  async listRegions(): Promise<Answer<'listRegions'>> {
    this.requireSession();
    return {
      regions: FAKE_REGIONS.map((r) => ({ ...r, latency: r.allowed ? '12ms' : null })),
      rules: this.rules.map((r) => ({ ...r })),
    };
  }

  async addRegionRule(request: {
    area: string;
    strategy: RegionRule['strategy'];
    name?: string | undefined;
  }): Promise<RegionRule> {
    this.requireSession();
    const areas = [...new Set(FAKE_REGIONS.map((r) => r.area))].sort();
    if (!areas.includes(request.area)) {
      throw new FerryError('config-invalid', `there is no area ${request.area}`, {
        errors: [{ field: 'area', message: `the areas are ${areas.join(', ')}`, allowed: areas }],
      });
    }
    const name = request.name ?? request.area;
    if (this.rules.some((r) => r.name === name))
      throw new FerryError('rule-exists', `a region rule named ${name} exists`);
    const rule = { name, area: request.area, strategy: request.strategy };
    this.rules.push(rule);
    return { ...rule };
  }

  async removeRegionRule(name: string): Promise<void> {
    this.requireSession();
    if (!this.rules.some((r) => r.name === name))
      throw new FerryError('rule-not-found', `there is no region rule named ${name}`);
    this.rules = this.rules.filter((r) => r.name !== name);
  }

  async latencyCheck(request: { all: boolean; count: number }): Promise<Answer<'latencyCheck'>> {
    this.requireSession();
    const regions = FAKE_REGIONS.filter((r) => r.allowed);
    const measured = (region: string, avg: number | null, loss: number): NodeLatency => ({
      node_id: NODE_OF_REGION[region]!,
      region,
      method: 'authenticated UDP probe',
      samples: request.count,
      avg_ms: avg,
      jitter_ms: avg === null ? null : Math.round(avg * 10) / 100,
      loss,
    });
    const all = [measured('global', 48.25, 0), measured('asia-east', 12.5, 0.2)];
    const current = this.current.node?.region;
    const results = request.all || !current ? all : all.filter((r) => r.region === current);
    return {
      results: results.filter((r) => regions.some((g) => g.id === r.region)),
      duration_ms: 840,
    };
  }

  async streamTest(request: { platform: string }): Promise<Answer<'streamTest'>> {
    const { id, def } = choosePlatform(this.platforms, request.platform);
    this.requireSession();
    const region = this.current.status === 'connected' ? this.current.region : null;
    if (region === null) throw new FerryError('not-connected', 'not connected: connect first');
    const country = FAKE_REGIONS.find((r) => r.id === region)?.country ?? null;
    const markers = country
      ? `data-country="${country}" "INNERTUBE_CONTEXT_GL":"${country}" "currentTerritory":"${country}"`
      : '';
    const outcome: ProbeOutcome = this.streamAnswers.get(id) ?? {
      ok: true,
      answer: { status: 200, headers: {}, locations: [], body: markers },
    };
    return streamVerdict({
      id,
      platform: def,
      outcome,
      nodeRegion: region,
      nodeCountry: country,
      regions: FAKE_REGIONS,
      checkedAt: new Date('2026-05-04T10:00:00Z'),
      durationMs: 320,
    });
  }

  /**
   * A healthy host's report for the fake's state (with the node's and the control plane's
   * addresses in it, as a real one has), each check replaced by `diagnoseOverrides`.
   */
  async diagnose(): Promise<Answer<'diagnose'>> {
    const s = this.current;
    const up = s.status === 'connected';
    const node = s.node?.id ?? 'hk-1';
    const checks: DiagnosticCheck[] = [
      diagnosticCheck('engine', 'ok', `running (${up ? `connected to ${node}` : s.status})`),
      this.config.service === null
        ? diagnosticCheck(
            'control-plane',
            'problem',
            'no control plane is configured',
            'netcli init --endpoint <url>',
          )
        : diagnosticCheck(
            'control-plane',
            'ok',
            '203.0.113.80:8080 answers in 4 ms (version 0.1.0)',
          ),
      diagnosticCheck('clock', 'ok', "within a second of the control plane's clock"),
      up
        ? diagnosticCheck('node-udp', 'ok', `the tunnel to ${node} runs over UDP`)
        : diagnosticCheck(
            'node-udp',
            'ok',
            `${node} (asia-east) at 198.51.100.7 answers authenticated UDP probes (12 ms)`,
          ),
      up
        ? diagnosticCheck('node-tcp', 'skipped', 'the tunnel runs over UDP')
        : diagnosticCheck(
            'node-tcp',
            'ok',
            `a TCP connect to ${node} (asia-east)'s Ferry port works`,
          ),
      up
        ? diagnosticCheck('dns-leak', 'ok', 'DNS queries reach the zone only through the node')
        : diagnosticCheck('dns-leak', 'skipped', 'connect first'),
      up
        ? diagnosticCheck('ipv6-leak', 'ok', 'no IPv6 route outside the tunnel')
        : diagnosticCheck('ipv6-leak', 'skipped', 'connect first'),
      up
        ? diagnosticCheck(
            'mtu',
            'ok',
            "packets up to 1420 bytes (the tunnel's MTU) cross the tunnel",
          )
        : diagnosticCheck('mtu', 'skipped', 'connect first'),
      !this.config.kill_switch
        ? diagnosticCheck(
            'kill-switch',
            'warning',
            'off: traffic leaves outside the tunnel whenever it drops',
            'netcli config set kill_switch on',
          )
        : diagnosticCheck(
            'kill-switch',
            'ok',
            up ? 'in force: 23 rules' : 'armed: holds from the next connect',
          ),
      diagnosticCheck('split', 'ok', 'off: everything goes through the tunnel'),
    ].map((c) => this.diagnoseOverrides.get(c.id) ?? c);
    return diagnosticsReport(checks, new Date('2026-05-04T10:00:00Z'), 1_250);
  }

  // ---- services and service tunnels ----------------------------------------------------------

  /** The services and running service tunnels (test controls: `unresolvable`, `unregistered`). */
  readonly serviceTunnels = new FakeServiceTunnels({
    requireSession: () => void this.requireSession(),
    place: (choice) => {
      const { region } = this.resolveRegion(choice ?? this.config.region);
      return { region, node: NODE_OF_REGION[region]! };
    },
    protocol: () => this.config.protocol,
  });

  async listServices(): Promise<Answer<'listServices'>> {
    return { services: this.serviceTunnels.list() };
  }

  async addService(request: AddServiceRequest): Promise<Answer<'addService'>> {
    return this.serviceTunnels.add(request);
  }

  async removeService(name: string): Promise<void> {
    this.serviceTunnels.remove(name);
  }

  async startTunnel(request: StartTunnelRequest): Promise<Answer<'startTunnel'>> {
    return this.serviceTunnels.start(request);
  }

  async listTunnels(): Promise<Answer<'listTunnels'>> {
    return { tunnels: [...this.serviceTunnels.running.values()].map((t) => ({ ...t })) };
  }

  async stopTunnel(tag: string): Promise<Answer<'stopTunnel'>> {
    return this.serviceTunnels.stop(tag);
  }

  async shutdown(): Promise<void> {
    this.shutdowns++;
    this.serviceTunnels.stopAll(true);
    await this.disconnect();
  }
}
