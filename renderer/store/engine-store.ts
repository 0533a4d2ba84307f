// The renderer's replica of the engine: what the engine last said (status from its events,
// configuration, regions, account, diagnostics), a short latency history and the last error in
// words. The engine is authoritative: every action asks it and keeps its answer, never a guess.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Device, Notice } from '../../contracts/control-api.js';
import type { ClientConfig, ClientConfigPatch, ConfigKey } from '../../contracts/client-config.js';
import type { DiagnosticsReport } from '../../contracts/diagnostics.js';
import type { FaceError, FaceValue } from '../../contracts/ipc.js';
import type {
  ADDED_DEVICE_KINDS,
  LocalAddDeviceResponse,
  LocalConnectResponse,
  LocalStatus,
} from '../../contracts/local-api.js';
import type { FieldError } from '../../contracts/problem.js';
import type { EngineTransport } from '../transport/engine-transport.js';
import { toFaceCallError } from '../transport/face-call-error.js';
import { describeError, sentence, type ShownError } from './error-words.js';
import {
  validateAccountNumber,
  validateDeviceName,
  validateDns,
  validateServiceUrl,
} from './input-checks.js';
import { appendSample, parseLatencyMs, type LatencySample } from './latency-history.js';
import { addNotice } from './notices.js';

export type Link = 'unknown' | 'up' | 'down';
export type Regions = FaceValue<'listRegions'>;
export type Account = FaceValue<'account'>;

/** Calls under way that a screen shows (and that are not started twice). */
export type BusyKey =
  | 'refresh'
  | 'regions'
  | 'connect'
  | 'disconnect'
  | 'config'
  | 'session'
  | 'account'
  | 'diagnose'
  | 'revoke'
  | 'addDevice';

/** What the last connect answered besides its status: measured, never assumed. */
export interface ConnectFacts {
  exit: LocalConnectResponse['exit_ip'];
  routing: LocalConnectResponse['routing'];
}

/** What "Add a phone or tablet" asks for (the engine's defaults for what is left out). */
export interface AddDeviceInput {
  kind: (typeof ADDED_DEVICE_KINDS)[number];
  name: string;
  /** A region, a rule or `auto`; left out: this device's region setting. */
  region?: string;
  /** Leave the phone's local network out of its tunnel. */
  allow_lan?: boolean;
}

export interface ConfigFeedback {
  changed: ConfigKey[];
  effect: 'reconnected' | 'applied' | 'saved';
}

export interface EngineReplica {
  /** The event stream from the engine: unknown until it first opens or fails. */
  link: Link;
  status: LocalStatus | null;
  config: ClientConfig | null;
  regions: Regions | null;
  account: Account | null;
  devices: Device[] | null;
  /**
   * The phone or tablet just added: its device and its wg-quick config, private key included.
   * Kept only until the person closes it (finishAddDevice); the key is then forgotten here.
   */
  addedDevice: LocalAddDeviceResponse | null;
  /** Why adding a phone or tablet failed, with its field errors: shown in its form. */
  addDeviceError: ShownError | null;
  diagnostics: DiagnosticsReport | null;
  /** Latency from status events while a tunnel is up; cleared when disconnected. */
  latency: LatencySample[];
  /** Notices the engine announced since the connection began (the status holds its own). */
  notices: Notice[];
  lastConnect: ConnectFacts | null;
  /** The account number of an account just created here: shown until dismissed. */
  newAccountNumber: string | null;
  error: ShownError | null;
  /** Input refused, by us before sending or by the engine (its per-field errors). */
  fieldErrors: FieldError[];
  configChange: ConfigFeedback | null;
  /**
   * Changes sent and not yet answered, merged: screens show them in place of the engine's
   * values meanwhile (a change that reconnects takes seconds). Cleared once all are answered.
   */
  configPending: ClientConfigPatch | null;
  busy: Partial<Record<BusyKey, true>>;
}

export interface EngineActions {
  /** Follows the engine's events until the returned function is called. */
  start(): () => void;
  refresh(): Promise<void>;
  connect(): Promise<void>;
  /** Also cancels a connect under way (the engine aborts it). */
  disconnect(): Promise<void>;
  /**
   * Saves the region; a live tunnel follows it (the engine reconnects, and its status events
   * show it). Saved rather than passed to connect: the picker shows the setting, and a
   * connect's own region would be invisible in the status and gone after a disconnect.
   */
  chooseRegion(region: string): Promise<void>;
  /** Stream mode for a platform (its id): a connect that pins it. */
  streamFor(platform: string): Promise<void>;
  patchConfig(patch: ClientConfigPatch): Promise<boolean>;
  /** `auto` or a resolver's address, checked here before the engine sees it. */
  setDns(text: string): Promise<boolean>;
  init(endpoint: string): Promise<boolean>;
  createAccount(): Promise<boolean>;
  login(accountNumber: string, password?: string): Promise<boolean>;
  logout(): Promise<void>;
  loadAccount(): Promise<void>;
  revokeDevice(id: string): Promise<void>;
  /**
   * Adds a phone or tablet: the engine makes its key pair and answers its config (private key
   * included), kept in `addedDevice` until finishAddDevice. The device list is read again.
   */
  addDevice(input: AddDeviceInput): Promise<boolean>;
  /** Closes "Add a phone or tablet": its config (and private key) and its error are dropped. */
  finishAddDevice(): void;
  runDiagnostics(): Promise<void>;
  dismissError(): void;
  dismissNewAccount(): void;
}

export type EngineState = EngineReplica & { actions: EngineActions };
export type EngineStore = StoreApi<EngineState>;

export interface EngineStoreOptions {
  now?: () => number;
  /** What the replica holds before the engine is first heard (tests render screens from it). */
  initial?: Partial<EngineReplica>;
}

/** Codes that mean another request replaced this one (a Cancel, a newer connect): not errors. */
const REPLACED = new Set(['cancelled', 'superseded', 'aborted']);

export const EMPTY_REPLICA: EngineReplica = Object.freeze({
  link: 'unknown',
  status: null,
  config: null,
  regions: null,
  account: null,
  devices: null,
  addedDevice: null,
  addDeviceError: null,
  diagnostics: null,
  latency: [],
  notices: [],
  lastConnect: null,
  newAccountNumber: null,
  error: null,
  fieldErrors: [],
  configChange: null,
  configPending: null,
  busy: {},
}) as EngineReplica;

function statusOf(answer: LocalStatus | LocalConnectResponse): LocalStatus {
  if (!('exit_ip' in answer)) return answer;
  const { exit_ip: _exit, routing: _routing, ...status } = answer;
  return status;
}

export function createEngineStore(
  transport: EngineTransport,
  options: EngineStoreOptions = {},
): EngineStore {
  const now = options.now ?? Date.now;
  /**
   * Counts status events. A call's status answer is kept only when no event came while it
   * was under way: the events are the newer truth, and answers and events travel apart.
   */
  let statusEvents = 0;
  /** Config changes go to the engine one after the other, in the order they were made. */
  let configQueue: Promise<unknown> = Promise.resolve();
  let configInFlight = 0;

  return createStore<EngineState>()((set, get) => {
    const setBusy = (key: BusyKey, on: boolean) =>
      set((s) => {
        const busy = { ...s.busy };
        if (on) busy[key] = true;
        else delete busy[key];
        return { busy };
      });

    /** Runs `fn` marked busy under `key`, unless it already is; false when skipped. */
    async function exclusive(key: BusyKey, fn: () => Promise<void>): Promise<boolean> {
      if (get().busy[key]) return false;
      setBusy(key, true);
      try {
        await fn();
      } finally {
        setBusy(key, false);
      }
      return true;
    }

    function fail(e: unknown): FaceError {
      const error = toFaceCallError(e).toFaceError();
      set({ error: describeError(error, get().link) });
      return error;
    }

    function applyStatus(next: LocalStatus, fromEvent: boolean): void {
      const prev = get().status;
      const patch: Partial<EngineReplica> = { status: next };
      const ms = parseLatencyMs(next.latency);
      if (fromEvent && ms !== null) patch.latency = appendSample(get().latency, { at: now(), ms });
      if (next.status === 'disconnected') {
        patch.latency = [];
        patch.notices = [];
        patch.lastConnect = null;
      }
      if (!next.signed_in) {
        patch.account = null;
        patch.devices = null;
        patch.regions = null;
        patch.addedDevice = null;
        patch.addDeviceError = null;
      }
      set(patch);
      const sessionChanged =
        prev !== null &&
        (prev.signed_in !== next.signed_in || prev.service_configured !== next.service_configured);
      if (sessionChanged) void loadSessionData(next);
    }

    /** Applies a call's status answer unless an event overtook it (see statusEvents). */
    function applyAnswer(answer: LocalStatus, eventsBefore: number): void {
      if (statusEvents === eventsBefore) applyStatus(answer, false);
    }

    /** What needs a configured service and a signed-in device: regions, account, devices. */
    async function loadSessionData(status: LocalStatus): Promise<void> {
      if (!status.service_configured || !status.signed_in) return;
      await Promise.all([loadRegions(), actions.loadAccount()]);
    }

    async function loadRegions(): Promise<void> {
      await exclusive('regions', async () => {
        try {
          set({ regions: await transport.call('listRegions', {}) });
        } catch (e) {
          fail(e);
        }
      });
    }

    /** One PATCH /config: the engine's configuration and effect, or its refusal shown. */
    async function sendConfig(patch: ClientConfigPatch): Promise<boolean> {
      try {
        const result = await transport.call('patchConfig', { body: patch });
        set({
          config: result.config,
          configChange: { changed: result.changed, effect: result.effect },
          // A new session: the exit address measured by the last connect is no more.
          ...(result.effect === 'reconnected' ? { lastConnect: null } : {}),
        });
        return true;
      } catch (e) {
        const error = toFaceCallError(e);
        if (error.errors && error.errors.length > 0) set({ fieldErrors: error.errors });
        else fail(error);
        return false;
      }
    }

    async function loadConfig(): Promise<void> {
      set({ config: await transport.call('getConfig', {}) });
    }

    const actions: EngineActions = {
      start() {
        return transport.subscribe({
          event(e) {
            if (e.type === 'status') {
              statusEvents += 1;
              applyStatus(e.status, true);
            } else {
              set({ notices: addNotice(get().notices, e.notice) });
            }
          },
          connection(state) {
            set({ link: state });
            // A new stream may follow a restarted engine: everything is read again.
            if (state === 'up') void actions.refresh();
          },
        });
      },

      async refresh() {
        await exclusive('refresh', async () => {
          const before = statusEvents;
          try {
            const [status] = await Promise.all([transport.call('status', {}), loadConfig()]);
            applyAnswer(status, before);
            await loadSessionData(status);
          } catch (e) {
            fail(e);
          }
        });
      },

      async connect() {
        await exclusive('connect', async () => {
          set({ error: null });
          // A setting changed just before (the region picked, then Connect) goes first.
          await configQueue;
          const before = statusEvents;
          try {
            const answer = await transport.call('connect', { body: {} });
            set({ lastConnect: { exit: answer.exit_ip, routing: answer.routing } });
            applyAnswer(statusOf(answer), before);
          } catch (e) {
            const error = toFaceCallError(e);
            if (!REPLACED.has(error.code)) fail(error);
          }
        });
      },

      async disconnect() {
        await exclusive('disconnect', async () => {
          const before = statusEvents;
          try {
            applyAnswer(await transport.call('disconnect', {}), before);
          } catch (e) {
            fail(e);
          }
        });
      },

      async chooseRegion(region) {
        const wasConnecting = get().status?.status === 'connecting';
        const saved = await actions.patchConfig({ region });
        // A connect under way keeps its old target: a new one replaces it (the engine cancels).
        if (saved && wasConnecting) await actions.connect();
      },

      async streamFor(platform) {
        await exclusive('connect', async () => {
          set({ error: null });
          await configQueue;
          const before = statusEvents;
          try {
            const answer = await transport.call('connect', { body: { platform } });
            set({ lastConnect: { exit: answer.exit_ip, routing: answer.routing } });
            applyAnswer(statusOf(answer), before);
          } catch (e) {
            const error = toFaceCallError(e);
            if (!REPLACED.has(error.code)) fail(error);
          }
        });
      },

      async patchConfig(patch) {
        configInFlight += 1;
        set((s) => ({
          busy: { ...s.busy, config: true },
          configPending: { ...s.configPending, ...patch },
          fieldErrors: [],
          configChange: null,
          error: null,
        }));
        const sent = configQueue.then(() => sendConfig(patch));
        configQueue = sent.catch(() => undefined);
        try {
          return await sent;
        } finally {
          configInFlight -= 1;
          if (configInFlight === 0) {
            set((s) => {
              const busy = { ...s.busy };
              delete busy.config;
              return { busy, configPending: null };
            });
          }
        }
      },

      async setDns(text) {
        const checked = validateDns(text);
        if (!checked.ok) {
          set({ fieldErrors: [checked.error], configChange: null });
          return false;
        }
        return actions.patchConfig({ dns: checked.value });
      },

      async init(endpoint) {
        const checked = validateServiceUrl(endpoint);
        if (!checked.ok) {
          set({ fieldErrors: [checked.error] });
          return false;
        }
        let done = false;
        await exclusive('session', async () => {
          set({ fieldErrors: [], error: null });
          try {
            const result = await transport.call('init', { body: { endpoint: checked.value } });
            set({ config: result.config });
            done = true;
          } catch (e) {
            fail(e);
          }
        });
        if (done) await actions.refresh();
        return done;
      },

      async createAccount() {
        let done = false;
        await exclusive('session', async () => {
          set({ fieldErrors: [], error: null });
          try {
            const session = await transport.call('createAccount', { body: {} });
            set({ newAccountNumber: session.account_number });
            done = true;
          } catch (e) {
            fail(e);
          }
        });
        if (done) await actions.refresh();
        return done;
      },

      async login(accountNumber, password) {
        const checked = validateAccountNumber(accountNumber);
        if (!checked.ok) {
          set({ fieldErrors: [checked.error] });
          return false;
        }
        let done = false;
        await exclusive('session', async () => {
          set({ fieldErrors: [], error: null });
          try {
            await transport.call('login', {
              body: { account_number: checked.value, ...(password ? { password } : {}) },
            });
            done = true;
          } catch (e) {
            const error = toFaceCallError(e);
            if (error.errors && error.errors.length > 0) set({ fieldErrors: error.errors });
            else fail(error);
          }
        });
        if (done) await actions.refresh();
        return done;
      },

      async logout() {
        const ok = await exclusive('session', async () => {
          try {
            await transport.call('logout', {});
          } catch (e) {
            fail(e);
          }
        });
        if (ok) await actions.refresh();
      },

      async loadAccount() {
        await exclusive('account', async () => {
          try {
            const [account, devices] = await Promise.all([
              transport.call('account', {}),
              transport.call('listDevices', {}),
            ]);
            set({ account, devices: devices.devices });
          } catch (e) {
            fail(e);
          }
        });
      },

      async revokeDevice(id) {
        const current = get().devices?.find((d) => d.id === id)?.current ?? false;
        let done = false;
        await exclusive('revoke', async () => {
          try {
            await transport.call('revokeDevice', { params: { id } });
            done = true;
          } catch (e) {
            fail(e);
          }
        });
        // Revoking this device signs it out: the whole picture changes, not just the list.
        if (done) await (current ? actions.refresh() : actions.loadAccount());
      },

      async addDevice(input) {
        const name = validateDeviceName(input.name);
        if (!name.ok) {
          set({
            addDeviceError: {
              code: 'validation-failed',
              words: sentence(name.error.message),
              action: null,
              errors: [name.error],
            },
          });
          return false;
        }
        let done = false;
        await exclusive('addDevice', async () => {
          set({ addedDevice: null, addDeviceError: null });
          try {
            const added = await transport.call('addDevice', {
              body: {
                kind: input.kind,
                name: name.value,
                ...(input.region === undefined ? {} : { region: input.region }),
                allow_lan: input.allow_lan ?? false,
              },
            });
            set({ addedDevice: added });
            done = true;
          } catch (e) {
            set({ addDeviceError: describeError(toFaceCallError(e).toFaceError(), get().link) });
          }
        });
        // The new device is in the list, and counts against the plan.
        if (done) await actions.loadAccount();
        return done;
      },

      finishAddDevice() {
        set({ addedDevice: null, addDeviceError: null });
      },

      async runDiagnostics() {
        await exclusive('diagnose', async () => {
          set({ error: null });
          try {
            set({ diagnostics: await transport.call('diagnose', {}) });
          } catch (e) {
            fail(e);
          }
        });
      },

      dismissError() {
        set({ error: null });
      },

      dismissNewAccount() {
        set({ newAccountNumber: null });
      },
    };

    return { ...EMPTY_REPLICA, ...options.initial, actions };
  });
}
