// The configuration as the faces change it: read, patch, set one key, init (the service and how
// it is trusted, all at once). A saved change takes effect at once: the protections follow it in
// place, or a live tunnel reconnects with it, and the answer says which (CONFIG_CHANGE_EFFECT).
import {
  CONFIG_CHANGE_EFFECT,
  type ClientConfig,
  type ConfigChangeResult,
  type ConfigKey,
} from '../../contracts/index.js';
import type { ConfigChange } from '../config-store.js';
import type { MainConnection } from '../connection/connection.js';
import type { Overrides } from '../connection/memory.js';
import type { EngineContext } from '../engine-context.js';

export class SettingsService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly connection: MainConnection,
    /** Reconnects a live tunnel with what a connect asked for beyond the configuration. */
    private readonly reconnect: (overrides: Overrides) => Promise<unknown>,
  ) {}

  get(): Promise<ClientConfig> {
    return this.ctx.config.load();
  }

  patch(patch: unknown): Promise<ConfigChangeResult> {
    return this.applyChange(() => this.ctx.config.patch(patch));
  }

  set(key: string, value: string): Promise<ConfigChangeResult> {
    return this.applyChange(() => this.ctx.config.set(key, value));
  }

  /** The service and how it is trusted, all at once: what a previous init said is replaced. */
  init(request: {
    endpoint: string;
    protocol?: ClientConfig['protocol'] | undefined;
    ca?: string | undefined;
    insecure?: boolean | undefined;
    service_key?: string | undefined;
  }): Promise<ConfigChangeResult> {
    return this.applyChange(() =>
      this.ctx.config.patch({
        service: request.endpoint,
        service_ca: request.ca ?? null,
        service_insecure: request.insecure ?? false,
        // Without one, a key recorded for this same service stays (another service drops it).
        ...(request.service_key ? { service_key: request.service_key } : {}),
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
    this.ctx.control.note(config);
    this.ctx.api.note(config);
    const overrides = this.connection.mem.overrides;
    const overridden = (Object.keys(overrides) as (keyof Overrides)[]).filter(
      (k): k is Exclude<keyof Overrides, 'platform' | 'via'> =>
        k !== 'platform' && k !== 'via' && given.includes(k) && overrides[k] !== config[k],
    );
    const reconnect = [
      ...new Set([
        ...changed.filter((k) => CONFIG_CHANGE_EFFECT[k] === 'reconnect'),
        ...overridden,
      ]),
    ];
    for (const key of given) delete overrides[key as keyof Overrides & ConfigKey];
    // A mode set in the configuration ends a connect's stream mode for a platform too.
    if (given.includes('mode')) delete overrides.platform;
    // Multihop set in the configuration ends a connect's --via.
    if (given.includes('multihop') || given.includes('entry_region')) delete overrides.via;
    const state = this.connection.state;
    const live = state === 'connected' || state === 'reconnecting';
    if (live && reconnect.length > 0) {
      await this.reconnect({ ...overrides });
      return { config, changed, effect: 'reconnected' };
    }
    const inPlace = changed.filter((k) => CONFIG_CHANGE_EFFECT[k] === 'live');
    if (inPlace.length === 0) return { config, changed, effect: 'saved' };
    const applied = await this.ctx.ops.run(() => this.connection.applyInPlace(config, inPlace));
    return { config, changed, effect: applied ? 'applied' : 'saved' };
  }
}
