// The fake engine's main connection: its status and events, connect (held or failed on a test's
// word) and disconnect, and how a live tunnel follows a change of the configuration, with the
// connect's own options kept for reconnects as the engine keeps them.
import {
  ApiError,
  CONFIG_CHANGE_EFFECT,
  MODE_OF_USAGE,
  findPlatform,
  idleStatus,
  latencyFigure,
  latencyText,
  serviceIsInsecure,
  transportReasonText,
  type ClientConfig,
  type ConfigChangeResult,
  type ConfigKey,
  type LocalConnectRequest,
  type LocalConnectResponse,
  type LocalStatus,
  type Notice,
  type PlatformTable,
  type ProtectionStatus,
  type RegionRule,
} from '../../../contracts/index.js';
import type { EngineEvent } from '../../engine-api.js';
import { LatencyHistory } from '../../connection/latency-history.js';
import { FerryError } from '../../errors.js';
import { FAKE_EXIT, NODE_OF_REGION, placeChoice } from './fake-world.js';

/** What a connect asked for beyond the configuration (kept for reconnects, as the engine does). */
type Overrides = Partial<Pick<ClientConfig, 'protocol' | 'encryption' | 'region' | 'mode'>> & {
  platform?: string;
};

/** What the connection reads of the rest of the fake engine, as it is at the time. */
export interface FakeConnectionDeps {
  config(): ClientConfig;
  signedIn(): boolean;
  rules(): readonly RegionRule[];
  platforms(): PlatformTable;
}

export class FakeConnection {
  /** Connects whose caller's signal aborted while they were under way. */
  abortedConnects = 0;
  /**
   * When set, the next connect fails with it, leaving the engine in error as the real one does
   * (with the kill switch on, still blocking).
   */
  failNextConnect: FerryError | null = null;
  /**
   * Notices the next connect brings (obfuscation on, a cipher substituted...): in its status and
   * told after it, as the engine tells a connect's own. A connect replaces the notices before it.
   */
  readonly connectNotices: Notice[] = [];
  #overrides: Overrides = {};
  #current: LocalStatus = idleStatus(false, false);
  /** The tunnel's measurements, kept as the engine keeps them (the same ring). */
  readonly #history = new LatencyHistory();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  #gate: Promise<void> | null = null;
  #onHeldStart: (() => void) | null = null;

  constructor(private readonly d: FakeConnectionDeps) {}

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Makes the next connect wait (in `connecting`) until `release` is called or its signal
   * aborts; `started` resolves once it waits.
   */
  holdConnect(): { release: () => void; started: Promise<void> } {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const started = new Promise<void>((r) => (this.#onHeldStart = r));
    this.#gate = gate;
    return { release, started };
  }

  /** A notice, as the engine sends one (obfuscation fell back, a key rotated...). */
  notify(notice: Notice): void {
    this.#current = { ...this.#current, notices: [...this.#current.notices, notice] };
    this.emit({ type: 'notice', notice });
  }

  status(): LocalStatus {
    return structuredClone(this.#current);
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: EngineEvent): void {
    for (const l of [...this.#listeners]) l(event);
  }

  /**
   * The status with `next` in it, the sign-in, service and protections as they are now; with
   * `measuredMs`, a measurement of the tunnel (its latency, and its history as the engine keeps
   * it: a connect that begins and a disconnect clear it).
   */
  setStatus(next: Partial<LocalStatus>, measuredMs?: number): void {
    const status = next.status ?? this.#current.status;
    if (status === 'connecting' || status === 'disconnected') this.#history.clear();
    const node = next.node === undefined ? this.#current.node : next.node;
    if (measuredMs !== undefined && node) this.#history.add(node.id, measuredMs);
    this.#current = {
      ...this.#current,
      ...next,
      ...(measuredMs !== undefined
        ? { latency: latencyText(measuredMs), latency_ms: latencyFigure(measuredMs) }
        : {}),
      latency_history: this.#history.samples,
      signed_in: this.d.signedIn(),
      service_configured: this.d.config().service !== null,
      service_insecure: serviceIsInsecure(this.d.config()) && this.d.config().service_insecure,
      protection: this.protection(status),
    };
    this.emit({ type: 'status', status: this.status() });
  }

  /** A measurement of the live tunnel, as the engine takes one (none while not connected). */
  measure(ms: number): void {
    if (this.#current.status === 'connected') this.setStatus({}, ms);
  }

  /**
   * As the engine's guard has it: the kill switch holds in every state but disconnected (a
   * state is said once its policy is in force: connecting's blocks already).
   */
  private protection(status: LocalStatus['status']): ProtectionStatus {
    const c = this.d.config();
    const holds = status !== 'disconnected';
    const tunnel = status === 'connected' || status === 'reconnecting';
    return {
      kill_switch: !c.kill_switch ? 'off' : holds || c.lockdown ? 'active' : 'armed',
      lockdown: c.lockdown,
      split: 'off',
      home_country: null,
      dns: tunnel ? ['10.64.0.1'] : [],
    };
  }

  /** Ends in error, as a refused or failed connect does. */
  private failWith(
    error: FerryError | ApiError,
    region: string | null,
    mode: LocalStatus['mode'],
  ): never {
    const message = error instanceof ApiError ? error.detail : error.message;
    this.setStatus({
      ...idleStatus(false, false),
      status: 'error',
      region,
      mode,
      error: { code: error.code, message },
    });
    throw error;
  }

  /** A connect of a signed-in engine (the engine checks the sign-in). */
  async connect(request: LocalConnectRequest, signal?: AbortSignal): Promise<LocalConnectResponse> {
    const failure = this.failNextConnect;
    if (failure) {
      this.failNextConnect = null;
      this.failWith(failure, this.#current.region, this.#current.mode);
    }
    const platform = request.platform
      ? (findPlatform(this.d.platforms(), request.platform) ?? null)
      : null;
    if (request.platform && platform === null)
      throw new FerryError('config-invalid', `there is no platform ${request.platform}`);
    const mode =
      platform !== null
        ? 'stream'
        : (request.mode ?? (request.usage && MODE_OF_USAGE[request.usage]));
    this.#overrides = {
      ...(request.protocol ? { protocol: request.protocol } : {}),
      ...(request.encryption ? { encryption: request.encryption } : {}),
      ...(request.region ? { region: request.region } : {}),
      ...(mode ? { mode } : {}),
      ...(platform !== null ? { platform } : {}),
    };
    const strategy = await this.bringUp(signal);
    return { ...this.status(), exit_ip: { ...FAKE_EXIT }, routing: strategy };
  }

  /** Connecting, then connected with the configuration under the connect's overrides. */
  private async bringUp(signal?: AbortSignal): Promise<LocalConnectResponse['routing']> {
    const o = this.#overrides;
    const choice = o.region ?? this.d.config().region;
    const mode = o.mode ?? this.d.config().mode;
    const platform = o.platform ?? null;
    let placed: { region: string; strategy: string };
    try {
      placed = placeChoice(this.d.rules(), choice);
    } catch (e) {
      if (e instanceof ApiError) this.failWith(e, choice, mode);
      throw e;
    }
    const { region, strategy } = placed;
    this.setStatus({ ...idleStatus(false, false), status: 'connecting', region, mode, platform });
    await this.held(signal);
    const protocol = o.protocol ?? this.d.config().protocol;
    const node = NODE_OF_REGION[region]!;
    this.setStatus(
      {
        status: 'connected',
        region,
        node: { id: node, region, endpoint: `${node}.example:51820` },
        protocol,
        // WireGuard always encrypts with ChaCha20-Poly1305, whatever was asked.
        cipher:
          protocol === 'wireguard'
            ? 'ChaCha20-Poly1305'
            : (o.encryption ?? this.d.config().encryption),
        mode,
        platform,
        transport: 'udp',
        transport_reason: {
          code: 'first-choice',
          blocked: [],
          message: transportReasonText('udp', 'first-choice', []),
        },
        interface: 'ferry0',
        error: null,
        notices: this.connectNotices.splice(0),
      },
      12,
    );
    for (const notice of this.#current.notices) this.emit({ type: 'notice', notice });
    return {
      strategy,
      reasons: [`${node} has the lowest latency in ${region}`, `load ${region} 20%`],
    };
  }

  /** Waits while a test holds the connect; its signal aborting ends it disconnected. */
  private async held(signal?: AbortSignal): Promise<void> {
    if (!this.#gate) return;
    const gate = this.#gate;
    this.#gate = null;
    this.#onHeldStart?.();
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

  async disconnect(): Promise<LocalStatus> {
    if (this.#current.status !== 'disconnected') {
      this.setStatus({ status: 'disconnecting' });
      this.setStatus(idleStatus(false, false));
    }
    this.#overrides = {};
    return this.status();
  }

  /**
   * Makes a live tunnel follow a saved change, as the engine's settings do: a key that needs a
   * new session (or one a connect option had overridden, now named) reconnects; a key the
   * protections take in place is applied where they hold (or lockdown is on); else saved.
   */
  async follow(
    next: ClientConfig,
    changed: ConfigKey[],
    given: ConfigKey[],
  ): Promise<ConfigChangeResult> {
    const o = this.#overrides as Record<string, unknown>;
    const overridden = Object.keys(o).some(
      (k) => k !== 'platform' && given.includes(k as ConfigKey) && o[k] !== next[k as ConfigKey],
    );
    for (const k of given) delete o[k];
    if (given.includes('mode')) delete o.platform;
    const needsReconnect =
      overridden || changed.some((k) => CONFIG_CHANGE_EFFECT[k] === 'reconnect');
    const state = this.#current.status;
    const result = (effect: ConfigChangeResult['effect']) => ({
      config: { ...next },
      changed,
      effect,
    });
    if ((state === 'connected' || state === 'reconnecting') && needsReconnect) {
      await this.bringUp();
      return result('reconnected');
    }
    const inPlace = changed.filter((k) => CONFIG_CHANGE_EFFECT[k] === 'live');
    if (inPlace.length > 0 || changed.includes('service')) this.setStatus({});
    if (inPlace.length === 0) return result('saved');
    const applied = state !== 'disconnected' || next.lockdown || inPlace.includes('lockdown');
    return result(applied ? 'applied' : 'saved');
  }
}
