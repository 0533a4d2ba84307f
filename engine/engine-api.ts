// What an engine host (netcli daemon, the Electron main process) asks of the engine: one method
// per route of the local API (contracts/local-api.ts), in its types. The host turns HTTP or IPC
// into these calls and their errors into problem+json; the engine knows nothing of either.
import type { z } from 'zod';
import type {
  ClientConfig,
  ConfigChangeResult,
  Device,
  LocalRoutes,
  LocalSession,
  LocalStatus,
  Notice,
} from '../contracts/index.js';

/** A route's body as the host hands it over: already parsed by the route's schema. */
type Body<K extends keyof LocalRoutes> = LocalRoutes[K] extends { body: infer S extends z.ZodType }
  ? z.output<S>
  : never;
/** A route's query as the host hands it over: already parsed by the route's schema. */
type Query<K extends keyof LocalRoutes> = LocalRoutes[K] extends {
  query: infer S extends z.ZodType;
}
  ? z.output<S>
  : never;
type Answer<K extends keyof LocalRoutes> = LocalRoutes[K] extends {
  response: infer S extends z.ZodType;
}
  ? z.output<S>
  : void;

export type EngineEvent =
  { type: 'status'; status: LocalStatus } | { type: 'notice'; notice: Notice };

/**
 * Every method may throw a FerryError (engine/errors.ts: the engine's own code) or an ApiError
 * (contracts/api-error.ts: the control plane's refusal, passed on with its code and status).
 * Nothing else escapes but bugs.
 */
export interface EngineApi {
  status(): LocalStatus;
  /** Resolves once the tunnel carries traffic; `signal` aborts the attempt (and cleans up). */
  connect(request: Body<'connect'>, signal?: AbortSignal): Promise<Answer<'connect'>>;
  disconnect(): Promise<LocalStatus>;
  /** Every status change (latency included) and notice, in order; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void;

  getConfig(): Promise<ClientConfig>;
  patchConfig(patch: Body<'patchConfig'>): Promise<ConfigChangeResult>;
  /** `netcli config set`: the key and value as typed (the key in any case, `-` for `_`). */
  setConfigKey(key: string, value: string): Promise<ConfigChangeResult>;
  init(request: Body<'init'>): Promise<ConfigChangeResult>;

  createAccount(request: Body<'createAccount'>): Promise<LocalSession>;
  login(request: Body<'login'>): Promise<LocalSession>;
  logout(): Promise<Answer<'logout'>>;
  account(): Promise<Answer<'account'>>;
  listDevices(): Promise<Answer<'listDevices'>>;
  /**
   * A phone or tablet added to the account with a key pair made here: its config, private key
   * filled in here and kept nowhere else. A full plan: the control plane's device-limit.
   */
  addDevice(request: Body<'addDevice'>): Promise<Answer<'addDevice'>>;
  renameDevice(id: string, name: string): Promise<Device>;
  revokeDevice(id: string): Promise<void>;

  listRegions(): Promise<Answer<'listRegions'>>;
  addRegionRule(request: Body<'addRegionRule'>): Promise<Answer<'addRegionRule'>>;
  removeRegionRule(name: string): Promise<void>;
  latencyCheck(request: Body<'latencyCheck'>): Promise<Answer<'latencyCheck'>>;
  /** Not connected: not-connected; a platform the table lacks: config-invalid listing them. */
  streamTest(request: Body<'streamTest'>, signal?: AbortSignal): Promise<Answer<'streamTest'>>;
  /** How the control plane is reached: the methods a user can choose, the one in use, the relay list. */
  apiAccess(): Promise<Answer<'apiAccess'>>;
  /** One method tried alone, without switching; not a method: api-access-invalid. */
  testApiAccess(
    request: Body<'testApiAccess'>,
    signal?: AbortSignal,
  ): Promise<Answer<'testApiAccess'>>;
  /** Switches once the method reaches the service; else api-access-failed, the setting unchanged. */
  useApiAccess(
    request: Body<'useApiAccess'>,
    signal?: AbortSignal,
  ): Promise<Answer<'useApiAccess'>>;
  /**
   * Every diagnostic check with its verdict, within about 10 s; never fails for what a check
   * found (that is its verdict). `signal` aborts it (the client went away).
   */
  diagnose(signal?: AbortSignal): Promise<Answer<'diagnose'>>;

  /** The services, shipped and the user's own. */
  listServices(): Promise<Answer<'listServices'>>;
  /** A name taken (also a shipped one's): service-exists. */
  addService(request: Body<'addService'>): Promise<Answer<'addService'>>;
  /** A shipped service: config-invalid; none of that name: service-not-found. */
  removeService(name: string): Promise<void>;
  /** The split rules by domain. */
  listSplitRules(): Promise<Answer<'listSplitRules'>>;
  /** Adds a rule (one for the same domain is replaced); in force at once while connected. */
  addSplitRule(request: Body<'addSplitRule'>): Promise<Answer<'addSplitRule'>>;
  /** None for that domain or program: split-rule-not-found. */
  removeSplitRule(target: Query<'removeSplitRule'>): Promise<void>;
  /**
   * Puts a `netcli exec` process on a way (the program it starts inherits it); another process:
   * config-invalid; no cgroup v2 here: not-supported.
   */
  splitExec(request: Body<'splitExec'>): Promise<void>;
  /**
   * Resolves once traffic crosses the service tunnel; a tag or service already running:
   * tunnel-exists; an unknown service: service-not-found; a domain that does not resolve:
   * destinations-unresolved. `signal` aborts the attempt (and cleans up).
   */
  startTunnel(request: Body<'startTunnel'>, signal?: AbortSignal): Promise<Answer<'startTunnel'>>;
  listTunnels(): Promise<Answer<'listTunnels'>>;
  /** None of that tag running: tunnel-not-found. */
  stopTunnel(tag: string): Promise<Answer<'stopTunnel'>>;

  /** SIGTERM: disconnect cleanly, remove everything made, stop timers. Idempotent. */
  shutdown(): Promise<void>;
}
