// `netcli api-access list|test|use`: the methods a user can choose, one tried without switching,
// and a switch that holds only once the new method reaches the service (the previous setting
// stays otherwise, as Mullvad's API access methods roll back).
import {
  apiMethodName,
  parseApiMethod,
  type ApiAccessList,
  type ApiAccessTest,
  type ApiAccessUse,
  type ApiMethod,
  type ClientConfig,
} from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import { failureWords, type StreamRoute } from './api-access.js';

/** Reaches the service's health route by `route` alone, on a connection of its own (a host's). */
export type ProbeControl = (route: StreamRoute, config: ClientConfig) => Promise<void>;

export class ApiAccessCommands {
  constructor(
    private readonly ctx: EngineContext,
    private readonly probe: ProbeControl | undefined,
  ) {}

  async list(): Promise<ApiAccessList> {
    const config = await this.ctx.config.load();
    this.ctx.api.note(config);
    const relays = await this.ctx.relayLists.relays(config);
    const status = this.ctx.api.status();
    const withTls = relays.filter((r) => r.tls_port !== null).length;
    const methods: ApiAccessList['methods'] = [
      { method: 'direct', kind: 'direct', about: 'straight to the service', in_use: false },
      {
        method: 'relays',
        kind: 'relays',
        about:
          withTls === 0
            ? 'through a relay of the signed list: none usable yet'
            : `through a relay of the signed list (${withTls} with a TLS port)`,
        in_use: false,
      },
    ];
    if (
      config.api_access !== 'auto' &&
      config.api_access !== 'direct' &&
      config.api_access !== 'relays'
    ) {
      const proxy = parseApiMethod(config.api_access);
      methods.push({
        method: apiMethodName(proxy),
        kind: proxy.kind,
        about: 'through the proxy you set',
        in_use: false,
      });
    }
    for (const m of methods) m.in_use = m.method === status.in_use;
    return { ...status, methods };
  }

  /** Tries `text`'s method alone, without switching to it. */
  async test(text: string, signal?: AbortSignal): Promise<ApiAccessTest> {
    const method = this.parse(text);
    const config = await this.ctx.config.load();
    this.ctx.api.note(config);
    return this.tryMethod(method, config, signal);
  }

  /** Switches to `text` (a method, or auto) once it reaches the service. */
  async use(text: string, signal?: AbortSignal): Promise<ApiAccessUse> {
    const auto = text.trim().toLowerCase() === 'auto';
    const config = await this.ctx.config.load();
    this.ctx.api.note(config);
    const method = auto ? null : this.parse(text);
    const test: ApiAccessTest = method
      ? await this.tryMethod(method, config, signal)
      : { method: 'auto', ok: true, message: 'direct first, then relays', elapsed_ms: 0 };
    if (!test.ok)
      throw new FerryError(
        'api-access-failed',
        `${test.method} cannot reach the service (${test.message}): still using ${this.ctx.api.status().setting}`,
      );
    const change = await this.ctx.config.patch({
      api_access:
        method === null
          ? 'auto'
          : method.kind === 'direct' || method.kind === 'relays'
            ? method.kind
            : method.url,
    });
    this.ctx.api.note(change.config);
    return { setting: this.ctx.api.status().setting, test };
  }

  private parse(text: string): ApiMethod {
    try {
      return parseApiMethod(text);
    } catch (e) {
      throw new FerryError('api-access-invalid', (e as Error).message);
    }
  }

  private async tryMethod(
    method: ApiMethod,
    config: ClientConfig,
    signal?: AbortSignal,
  ): Promise<ApiAccessTest> {
    if (config.service === null)
      throw new FerryError(
        'service-not-configured',
        'no service is configured: run netcli init --endpoint <url>',
      );
    if (!this.probe)
      throw new FerryError('not-supported', 'this engine cannot try API access methods');
    const name = apiMethodName(method);
    const started = performance.now();
    const route: StreamRoute = (target, finish, s) =>
      this.ctx.api.through(method, target, finish, signal ? AbortSignal.any([s, signal]) : s);
    try {
      await this.probe(route, config);
      const ms = Math.round(performance.now() - started);
      return { method: name, ok: true, message: `reached the service in ${ms} ms`, elapsed_ms: ms };
    } catch (e) {
      return {
        method: name,
        ok: false,
        message: failureWords(e),
        elapsed_ms: Math.round(performance.now() - started),
      };
    }
  }
}
