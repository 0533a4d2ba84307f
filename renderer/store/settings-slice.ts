// The settings: the engine's configuration, what its last change did, and the changes sent and
// not yet answered. Changes go to the engine one after the other, in the order they were made;
// the service address (init) is set here too.
import type { ClientConfig, ClientConfigPatch, ConfigKey } from '../../contracts/client-config.js';
import type { EngineTransport } from '../transport/engine-transport.js';
import { validateDns, validateServiceUrl } from './input-checks.js';
import type { EngineSlice, SetEngine, SliceDeps } from './slice.js';
import { storeWords } from './store-words.js';

export interface ConfigFeedback {
  changed: ConfigKey[];
  effect: 'reconnected' | 'applied' | 'saved';
}

export interface SettingsReplica {
  config: ClientConfig | null;
  configChange: ConfigFeedback | null;
  /**
   * Changes sent and not yet answered, merged: screens show them in place of the engine's
   * values meanwhile (a change that reconnects takes seconds). Cleared once all are answered.
   */
  configPending: ClientConfigPatch | null;
}

export interface SettingsActions {
  patchConfig(patch: ClientConfigPatch): Promise<boolean>;
  /** `auto` or a resolver's address, checked here before the engine sees it. */
  setDns(text: string): Promise<boolean>;
  init(endpoint: string): Promise<boolean>;
}

export const EMPTY_SETTINGS: SettingsReplica = {
  config: null,
  configChange: null,
  configPending: null,
};

/** Config changes in the order they were made, each sent once the one before is answered. */
export interface ConfigQueue {
  /** Sends after every change queued before; its own answer (or refusal). */
  push<T>(send: () => Promise<T>): Promise<T>;
  /** Settles once every change queued so far is answered. */
  settled(): Promise<unknown>;
}

export function createConfigQueue(): ConfigQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    push(send) {
      const sent = tail.then(() => send());
      tail = sent.catch(() => undefined);
      return sent;
    },
    settled: () => tail,
  };
}

/** Reads the engine's configuration into the replica. */
export async function loadConfig(transport: EngineTransport, set: SetEngine): Promise<void> {
  set({ config: await transport.call('getConfig', {}) });
}

export interface SettingsDeps extends SliceDeps {
  configQueue: ConfigQueue;
}

export const createSettingsSlice =
  ({
    transport,
    calls,
    configQueue,
  }: SettingsDeps): EngineSlice<SettingsReplica & { actions: SettingsActions }> =>
  (set, get) => {
    /** Changes sent and not yet answered (see configPending). */
    let configInFlight = 0;

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
        calls.failAtFields(e);
        return false;
      }
    }

    return {
      ...EMPTY_SETTINGS,
      actions: {
        async patchConfig(patch) {
          configInFlight += 1;
          set((s) => ({
            busy: { ...s.busy, config: true },
            configPending: { ...s.configPending, ...patch },
            fieldErrors: [],
            configChange: null,
            error: null,
          }));
          try {
            return await configQueue.push(() => sendConfig(patch));
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
          const checked = validateDns(text, storeWords(get()));
          if (!checked.ok) {
            set({ fieldErrors: [checked.error], configChange: null });
            return false;
          }
          return get().actions.patchConfig({ dns: checked.value });
        },

        async init(endpoint) {
          const checked = validateServiceUrl(endpoint, storeWords(get()));
          if (!checked.ok) {
            set({ fieldErrors: [checked.error] });
            return false;
          }
          return calls.sessionStep(async () => {
            const result = await transport.call('init', { body: { endpoint: checked.value } });
            set({ config: result.config });
          });
        },
      },
    };
  };
