// An in-memory EngineApi with honest state (configuration, sign-in, devices, region rules, the
// connection's states), for the tests of the engine host and the faces. No network, no OS. It
// keeps the EngineApi contract (engine-api.contract.ts) that the real Engine keeps.
import {
  CLIENT_CONFIG_DEFAULTS,
  CONFIG_CHANGE_EFFECT,
  apiMethodName,
  applyConfigPatch,
  parseApiMethod,
  setConfigValue,
  type AddDestinationSetRequest,
  type ClientConfig,
  type ConfigChangeResult,
  type ConfigKey,
  type Device,
  type DiagnosticCheck,
  type DiagnosticCheckId,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalConnectRequest,
  type LocalConnectResponse,
  type LocalSession,
  type LocalStatus,
  type Notice,
  type PlatformTable,
  type RegionRule,
  type StartTunnelRequest,
  type SplitRule,
  type SplitRuleTarget,
} from '../../../contracts/index.js';
import type { EngineApi, EngineEvent } from '../../engine-api.js';
import { FerryError } from '../../errors.js';
import { FakeServiceTunnels } from '../../service-tunnels.fake.js';
import { withSplitRule, withoutSplitRule } from '../../split/split-rules.js';
import type { ProbeOutcome } from '../../stream-test.js';
import {
  FakeAccounts,
  type FakeAccount,
  type FakeSession,
  type LiveState,
} from './fake-accounts.js';
import { FakeCatalog } from './fake-catalog.js';
import { FakeConnection } from './fake-connection.js';
import { fakeDiagnosis } from './fake-diagnose.js';
import { NODE_OF_REGION, placeChoice } from './fake-world.js';

type Answer<K extends keyof EngineApi> = EngineApi[K] extends (...a: never[]) => infer R
  ? Awaited<R>
  : never;

export class FakeEngine implements EngineApi {
  config: ClientConfig = { ...CLIENT_CONFIG_DEFAULTS };
  shutdowns = 0;
  /** Checks diagnose reports instead of what the fake's state gives (a broken setup). */
  readonly diagnoseOverrides = new Map<DiagnosticCheckId, DiagnosticCheck>();
  readonly #accounts = new FakeAccounts();
  readonly #catalog = new FakeCatalog();
  #splitRules: SplitRule[] = [];
  readonly #connection = new FakeConnection({
    config: () => this.config,
    signedIn: () => this.session !== null,
    rules: () => this.rules,
    platforms: () => this.platforms,
  });

  // ---- test controls (the parts' state, under the names the tests use) ------------------------

  get accounts(): Map<string, FakeAccount> {
    return this.#accounts.accounts;
  }
  /** The signed-in account and this device's id. */
  get session(): FakeSession | null {
    return this.#accounts.session;
  }
  set session(session: FakeSession | null) {
    this.#accounts.session = session;
  }
  /** The other devices' live state as the control plane would list it. */
  get liveStates(): Map<string, LiveState> {
    return this.#accounts.liveStates;
  }
  /** The private keys addDevice made, in order (the real engine keeps none: tests look). */
  get addedDeviceKeys(): string[] {
    return this.#accounts.addedDeviceKeys;
  }
  get rules(): RegionRule[] {
    return this.#catalog.rules;
  }
  set rules(rules: RegionRule[]) {
    this.#catalog.rules = rules;
  }
  /** The platform table stream-test knows (the shipped one unless a test adds entries). */
  get platforms(): PlatformTable {
    return this.#catalog.platforms;
  }
  set platforms(table: PlatformTable) {
    this.#catalog.platforms = table;
  }
  /** What each platform answers stream-test, by platform id. */
  get streamAnswers(): Map<string, ProbeOutcome> {
    return this.#catalog.streamAnswers;
  }
  get listenerCount(): number {
    return this.#connection.listenerCount;
  }
  /** Connects whose caller's signal aborted while they were under way. */
  get abortedConnects(): number {
    return this.#connection.abortedConnects;
  }
  /**
   * When set, the next connect fails with it, leaving the engine in error as the real one does
   * (with the kill switch on, still blocking).
   */
  get failNextConnect(): FerryError | null {
    return this.#connection.failNextConnect;
  }
  set failNextConnect(failure: FerryError | null) {
    this.#connection.failNextConnect = failure;
  }

  /** Notices the next connect brings, as the engine's own (see FakeConnection). */
  get connectNotices(): Notice[] {
    return this.#connection.connectNotices;
  }

  /**
   * Makes the next connect wait (in `connecting`) until `release` is called or its signal
   * aborts; `started` resolves once it waits.
   */
  holdConnect(): { release: () => void; started: Promise<void> } {
    return this.#connection.holdConnect();
  }

  /** A notice, as the engine sends one (obfuscation fell back, a key rotated...). */
  notify(notice: Notice): void {
    this.#connection.notify(notice);
  }

  /** A latency measurement of the live tunnel, as the engine takes one (its status tells it). */
  measure(ms: number): void {
    this.#connection.measure(ms);
  }

  // ---- the connection -------------------------------------------------------------------------

  status(): LocalStatus {
    return this.#connection.status();
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    return this.#connection.subscribe(listener);
  }

  private get current(): LocalStatus {
    return this.#connection.status();
  }

  private requireService(): void {
    if (this.config.service === null)
      throw new FerryError('service-not-configured', 'no control plane is configured');
  }

  private requireSession(): FakeSession {
    this.requireService();
    if (!this.session) throw new FerryError('not-signed-in', 'this device is not signed in');
    return this.session;
  }

  async connect(request: LocalConnectRequest, signal?: AbortSignal): Promise<LocalConnectResponse> {
    this.requireSession();
    return this.#connection.connect(request, signal);
  }

  disconnect(): Promise<LocalStatus> {
    return this.#connection.disconnect();
  }

  // ---- configuration --------------------------------------------------------------------------

  async getConfig(): Promise<ClientConfig> {
    return { ...this.config };
  }

  async patchConfig(patch: Partial<ClientConfig>): Promise<ConfigChangeResult> {
    const r = applyConfigPatch(this.config, patch);
    if (!r.ok)
      throw new FerryError('config-invalid', 'a setting was refused', { errors: r.errors });
    const given = (Object.keys(patch) as ConfigKey[]).filter((k) => k in CONFIG_CHANGE_EFFECT);
    return this.applyChange(r.config, r.changed, given);
  }

  private applyChange(
    next: ClientConfig,
    changed: ConfigKey[],
    given: ConfigKey[],
  ): Promise<ConfigChangeResult> {
    this.config = next;
    return this.#connection.follow(next, changed, given);
  }

  async setConfigKey(key: string, value: string): Promise<ConfigChangeResult> {
    const r = setConfigValue(this.config, key, value);
    if (!r.ok) throw new FerryError('config-invalid', r.error.message, { errors: [r.error] });
    return this.applyChange(r.config, r.changed ? [r.key] : [], [r.key]);
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

  async createAccount(request: {
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.requireService();
    const account = this.#accounts.create(request.password);
    return this.signedIn(this.#accounts.signIn(account, request.device_name));
  }

  async login(request: {
    account_number: string;
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    this.requireService();
    const account = this.#accounts.open(request.account_number, request.password);
    return this.signedIn(this.#accounts.signIn(account, request.device_name));
  }

  private signedIn(session: LocalSession): LocalSession {
    this.#connection.setStatus({});
    return session;
  }

  async logout(): Promise<{ signed_in: false }> {
    await this.disconnect();
    this.serviceTunnels.stopAll(false);
    if (this.session) {
      this.#accounts.signOut();
      this.#connection.setStatus({});
    }
    return { signed_in: false };
  }

  async account(): Promise<Answer<'account'>> {
    return this.#accounts.account(this.requireSession());
  }

  async listDevices(): Promise<Answer<'listDevices'>> {
    const session = this.requireSession();
    const own = this.current;
    const ownState: LiveState =
      own.status === 'connected'
        ? { status: 'connected', latency: own.latency, region: own.region }
        : own.status === 'connecting' || own.status === 'reconnecting'
          ? { status: 'connecting', latency: null, region: own.region }
          : { status: 'disconnected', latency: null, region: null };
    return this.#accounts.listDevices(session, ownState);
  }

  async addDevice(request: LocalAddDeviceRequest): Promise<LocalAddDeviceResponse> {
    const session = this.requireSession();
    const { region } = placeChoice(this.rules, request.region ?? this.config.region);
    return this.#accounts.addDevice(session, request, region);
  }

  async renameDevice(id: string, name: string): Promise<Device> {
    return this.#accounts.rename(this.requireSession(), id, name);
  }

  async revokeDevice(id: string): Promise<void> {
    const session = this.requireSession();
    if (this.#accounts.device(session, id).id === session.deviceId) await this.logout();
    else this.#accounts.revokeOther(session, id);
  }

  // ---- regions, latency, stream-test, diagnose ------------------------------------------------

  async listRegions(): Promise<Answer<'listRegions'>> {
    this.requireSession();
    return this.#catalog.listRegions(this.current);
  }

  async addRegionRule(request: {
    area: string;
    strategy: RegionRule['strategy'];
    name?: string | undefined;
  }): Promise<RegionRule> {
    this.requireSession();
    return this.#catalog.addRegionRule(request);
  }

  async removeRegionRule(name: string): Promise<void> {
    this.requireSession();
    this.#catalog.removeRegionRule(name);
  }

  async latencyCheck(request: { all: boolean; count: number }): Promise<Answer<'latencyCheck'>> {
    this.requireSession();
    return this.#catalog.latencyCheck(request, this.current);
  }

  async streamTest(request: { platform: string }): Promise<Answer<'streamTest'>> {
    return this.#catalog.streamTest(request, this.current, () => void this.requireSession());
  }

  // ---- API access methods ----------------------------------------------------------------------

  /** Test control: the methods (by name) that cannot reach the service. */
  unreachableApiMethods = new Set<string>();

  async apiAccess(): Promise<Answer<'apiAccess'>> {
    const status = this.current.api_access;
    return {
      ...status,
      methods: [
        {
          method: 'direct',
          kind: 'direct',
          about: 'straight to the service',
          in_use: status.in_use === 'direct',
        },
        {
          method: 'relays',
          kind: 'relays',
          about: 'through a relay of the signed list: none usable yet',
          in_use: status.in_use === 'relays',
        },
      ],
    };
  }

  async testApiAccess(request: { method: string }): Promise<Answer<'testApiAccess'>> {
    this.requireService();
    let name: string;
    try {
      name = apiMethodName(parseApiMethod(request.method));
    } catch (e) {
      throw new FerryError('api-access-invalid', (e as Error).message);
    }
    return this.unreachableApiMethods.has(name)
      ? {
          method: name,
          ok: false,
          message: 'no answer in time (the address may be blocked)',
          elapsed_ms: 5000,
        }
      : { method: name, ok: true, message: 'reached the service in 12 ms', elapsed_ms: 12 };
  }

  async useApiAccess(request: { method: string }): Promise<Answer<'useApiAccess'>> {
    const auto = request.method.trim().toLowerCase() === 'auto';
    const test = auto
      ? { method: 'auto', ok: true, message: 'direct first, then relays', elapsed_ms: 0 }
      : await this.testApiAccess(request);
    if (!test.ok)
      throw new FerryError(
        'api-access-failed',
        `${test.method} cannot reach the service (${test.message})`,
      );
    const r = setConfigValue(this.config, 'api_access', auto ? 'auto' : request.method);
    if (!r.ok) throw new FerryError('api-access-invalid', r.error.message);
    this.config = r.config;
    return { setting: auto ? 'auto' : test.method, test };
  }

  async diagnose(): Promise<Answer<'diagnose'>> {
    return fakeDiagnosis(this.current, this.config, this.diagnoseOverrides);
  }

  // ---- services and service tunnels ----------------------------------------------------------

  /** The services and running service tunnels (test controls: `unresolvable`, `unregistered`). */
  readonly serviceTunnels = new FakeServiceTunnels({
    requireSession: () => void this.requireSession(),
    place: (choice) => {
      const { region } = placeChoice(this.rules, choice ?? this.config.region);
      return { region, node: NODE_OF_REGION[region]! };
    },
    protocol: () => this.config.protocol,
  });

  async listServices(): Promise<Answer<'listServices'>> {
    return { services: this.serviceTunnels.list() };
  }

  async addService(request: AddDestinationSetRequest): Promise<Answer<'addService'>> {
    return this.serviceTunnels.add(request);
  }

  async removeService(name: string): Promise<void> {
    this.serviceTunnels.remove(name);
  }

  async listSplitRules(): Promise<Answer<'listSplitRules'>> {
    return { rules: [...this.#splitRules] };
  }

  async addSplitRule(request: SplitRule): Promise<Answer<'addSplitRule'>> {
    this.#splitRules = withSplitRule(this.#splitRules, request);
    return request;
  }

  async removeSplitRule(target: SplitRuleTarget): Promise<void> {
    this.#splitRules = withoutSplitRule(this.#splitRules, target);
  }

  async splitExec(): Promise<void> {
    throw new FerryError('not-supported', 'the fake engine runs no programs');
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
