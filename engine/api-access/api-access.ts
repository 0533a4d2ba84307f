// API access methods: how the engine's control-plane calls reach the service. Each connection of
// the control transport asks `route` for a stream to the control plane's host and port, already
// through the caller's TLS (so a method whose TLS fails, a forged address for one, counts as
// failed and the next is tried). `direct`: the host's addresses; `relays`: the TLS transport of
// a relay from the signed relay list, which splices to the control plane; a proxy the user gave.
// `auto` tries, in order, what worked last in this run, what worked on this network before
// (remembered per network like the transport autopilot's choice), direct, then relays; with a
// tunnel up, direct first (it goes through the tunnel), and `relays` means the tunnel's relay.
// Nothing here logs a destination.
import type { Duplex } from 'node:stream';

import {
  apiMethodName,
  IDLE_API_ACCESS,
  parseApiMethod,
  type ApiAccessStatus,
  type ApiMethod,
  type ClientConfig,
  type RelayFacts,
} from '../../contracts/index.js';
import type { NetworkMemory, RememberedApi } from '../transports/network-memory.js';
import type { RelayLists } from './relay-lists.js';
import type { RelayTlsPort } from './relay-stream.js';

/** Finishes a raw stream into what the caller speaks over (its TLS handshake), or throws. */
export type FinishStream = (raw: Duplex, signal: AbortSignal) => Promise<Duplex>;

/** What the control transport asks for: a finished stream to `host`:`port`, or a failure. */
export type StreamRoute = (
  target: { host: string; port: number },
  finish: FinishStream,
  signal: AbortSignal,
) => Promise<Duplex>;

/** How each kind of method opens its raw stream (the real ones in openers.ts; fakes in tests). */
export interface MethodOpeners {
  direct(host: string, port: number, signal: AbortSignal): Promise<Duplex>;
  relay(relay: RelayTlsPort, signal: AbortSignal): Promise<Duplex>;
  proxy(
    method: Extract<ApiMethod, { host: string }>,
    host: string,
    port: number,
    signal: AbortSignal,
  ): Promise<Duplex>;
  /** A relay's host's addresses (a literal as it is). */
  lookup(host: string): Promise<string[]>;
}

/** Time for one method (its connection and the TLS through it). */
export const DIRECT_BUDGET_MS = 5_000;
export const RELAY_BUDGET_MS = 4_500;
export const PROXY_BUDGET_MS = 8_000;
/** Relays tried per call, of those with a TLS port, in random order. */
export const RELAYS_PER_CALL = 2;
/** Relays of the list the kill switch lets the engine's control-plane sockets reach, at most. */
const MAX_RELAY_ENDPOINTS = 64;

export class ApiAccessError extends Error {
  /**
   * The first method's own error code (a certificate's, ECONNREFUSED...): what a call's error
   * says of the service when every method failed.
   */
  readonly code: string | undefined;

  constructor(
    readonly failures: { method: string; message: string }[],
    errors: readonly unknown[] = [],
  ) {
    super(
      failures.length === 0
        ? 'no way to reach the service is known'
        : failures.map((f) => `${f.method}: ${f.message}`).join('; '),
    );
    const coded = errors.find((e) => typeof (e as { code?: unknown } | null)?.code === 'string');
    this.code = (coded as { code?: string } | undefined)?.code;
  }
}

/**
 * Why a method failed, in words that name no address: what a censor's doing looks like from
 * here (no answer, a reset, a name that does not resolve, another certificate).
 */
export function failureWords(e: unknown): string {
  // The innermost cause says what happened (a call's error wraps fetch's, which wraps ours).
  let inner = e;
  for (let depth = 0; depth < 6 && !(inner instanceof ApiAccessError); depth++) {
    const cause = (inner as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    inner = cause;
  }
  if (inner instanceof ApiAccessError) return inner.message;
  const err = inner as { code?: string; message?: string; name?: string } | null;
  const code = err?.code ?? '';
  const message = err?.message ?? String(inner);
  if (err?.name === 'TimeoutError' || /ETIMEDOUT|timed out|timeout/i.test(code + message))
    return 'no answer in time (the address may be blocked)';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || /socket hang up|ECONNRESET/.test(message))
    return 'the connection was reset (a censor may cut it)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the name does not resolve';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'no route to the service';
  if (/CERT|certificate|self.signed|altnames/i.test(code + message))
    return 'the certificate is not the service’s (the name or address may be forged)';
  // Our own words (no relay list, the proxy's refusal) carry no address; anything else is cut to
  // its first words without one.
  return message.replace(
    /\[?(?:[0-9a-f]{0,4}:){2,}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4})\]?(?::\d+)?|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?/gi,
    '…',
  );
}

/**
 * Runs `work` with a signal that aborts when `signal` does or after `ms`: a timer of its own,
 * held until the work ends (a timeout signal nothing holds may never fire).
 */
async function withBudget<T>(
  signal: AbortSignal,
  ms: number,
  work: (s: AbortSignal) => Promise<T>,
): Promise<T> {
  const budget = new AbortController();
  const timer = setTimeout(
    () => budget.abort(Object.assign(new Error('timed out'), { name: 'TimeoutError' })),
    ms,
  );
  const onAbort = () => budget.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(budget.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** A relay's TLS port from the list (those without one cannot carry API access). */
function tlsPortOf(
  r: RelayFacts,
): { host: string; port: number; serverName: string; nodeKey: string } | null {
  if (r.tls_port === null || r.tls_server_name === null || r.ferry_public_key === null) return null;
  return {
    host: r.endpoint_host,
    port: r.tls_port,
    serverName: r.tls_server_name,
    nodeKey: r.ferry_public_key,
  };
}

const REASONS: Record<Exclude<RememberedApi, 'direct'>, string> = {
  relays: 'the service cannot be reached directly from here: reached through a relay',
  proxy: 'the service is reached through the proxy you set',
};

export class ApiAccess {
  /** What reached the service last in this run (cleared when the network changes). */
  #worked: ApiMethod | null = null;
  #inUse: ApiMethod | null = null;
  #tunnelUp = false;
  #config: ClientConfig | null = null;

  constructor(
    private readonly d: {
      openers: MethodOpeners;
      relays: RelayLists;
      networks: NetworkMemory;
      /** Drops the control transport's pooled connections (opened by another method). */
      resetConnections?: () => void;
      random?: () => number;
    },
  ) {}

  /** The configuration in force (the engine tells it on every load); the list's state follows. */
  note(config: ClientConfig): void {
    const keyChanged = this.#config?.service_key !== config.service_key;
    const methodChanged = this.#config !== null && this.#config.api_access !== config.api_access;
    this.#config = config;
    // A kept-alive connection of the old method must not carry the next call.
    if (methodChanged) {
      this.#worked = null;
      this.d.resetConnections?.();
    }
    if (keyChanged) void this.d.relays.relays(config).catch(() => undefined);
  }

  /** A tunnel came or went: with one up, direct goes through it and is tried first. */
  tunnel(up: boolean): void {
    // What got through inside the tunnel says nothing of the network outside it.
    if (this.#tunnelUp && !up) this.#worked = null;
    this.#tunnelUp = up;
  }

  /** The host's network changed: what worked in this run may not any more. */
  networkChanged(): void {
    this.#worked = null;
  }

  /** The method that reached the service last: anything else than direct means client_ip is not ours. */
  get inUse(): ApiMethod | null {
    return this.#inUse;
  }

  /** The methods `setting` stands for, in the order they are tried now. */
  async order(setting: string): Promise<ApiMethod[]> {
    if (setting !== 'auto') return [parseApiMethod(setting)];
    const direct: ApiMethod = { kind: 'direct' };
    const relays: ApiMethod = { kind: 'relays' };
    const remembered = await this.d.networks.recallApi(
      await this.d.networks.currentNetwork().catch(() => null),
    );
    const list: ApiMethod[] = [];
    if (this.#tunnelUp) list.push(direct);
    if (this.#worked) list.push(this.#worked);
    if (remembered === 'relays') list.push(relays);
    list.push(direct, relays);
    const seen = new Set<string>();
    return list.filter((m) => {
      const name = apiMethodName(m);
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
  }

  /** The control transport's route: the setting's methods in turn until one reaches the service. */
  readonly route: StreamRoute = async (target, finish, signal) => {
    const setting = this.#config?.api_access ?? 'auto';
    const failures: { method: string; message: string }[] = [];
    const errors: unknown[] = [];
    for (const method of await this.order(setting)) {
      signal.throwIfAborted();
      try {
        const stream = await this.through(method, target, finish, signal);
        this.#worked = method;
        if (this.#inUse === null || apiMethodName(this.#inUse) !== apiMethodName(method))
          this.#inUse = method;
        if (setting === 'auto' && !this.#tunnelUp) void this.remember(method);
        return stream;
      } catch (e) {
        if (signal.aborted) throw e;
        failures.push({ method: apiMethodName(method), message: failureWords(e) });
        errors.push(e);
      }
    }
    throw new ApiAccessError(failures, errors);
  };

  /** One method's finished stream, within its time. */
  async through(
    method: ApiMethod,
    target: { host: string; port: number },
    finish: FinishStream,
    signal: AbortSignal,
  ): Promise<Duplex> {
    const o = this.d.openers;
    // With a tunnel up, relays are reached through it, which is itself a relay's: the control
    // plane is asked through the tunnel (a relay's own ports are closed to its tunnel's devices).
    if (method.kind === 'direct' || (method.kind === 'relays' && this.#tunnelUp))
      return withBudget(signal, DIRECT_BUDGET_MS, async (s) =>
        finish(await o.direct(target.host, target.port, s), s),
      );
    if (method.kind !== 'relays')
      return withBudget(signal, PROXY_BUDGET_MS, async (s) =>
        finish(await o.proxy(method, target.host, target.port, s), s),
      );
    const ports = (await this.d.relays.relays(this.#config ?? { service_key: null }))
      .map(tlsPortOf)
      .filter((p) => p !== null);
    if (ports.length === 0) throw new Error(this.noRelaysWords());
    const random = this.d.random ?? Math.random;
    const picked = ports
      .map((p) => ({ p, k: random() }))
      .sort((a, b) => a.k - b.k)
      .slice(0, RELAYS_PER_CALL)
      .map((x) => x.p);
    let last: unknown = null;
    for (const relay of picked) {
      try {
        return await withBudget(signal, RELAY_BUDGET_MS, async (s) => {
          const [address] = await o.lookup(relay.host);
          if (!address) throw new Error('a relay’s name did not resolve');
          return finish(await o.relay({ ...relay, address }, s), s);
        });
      } catch (e) {
        last = e;
        if (signal.aborted) break;
      }
    }
    throw new Error(`no relay got through (${(last as Error).message})`);
  }

  /** Whether `config` lets the engine reach the service straight (auto or direct). */
  static allowsDirect(config: Pick<ClientConfig, 'api_access'>): boolean {
    return config.api_access === 'auto' || config.api_access === 'direct';
  }

  /**
   * Where the methods `config` allows go (relays' TLS ports, a proxy), for the kill switch: the
   * engine's marked sockets only are let out to them. Direct's are the caller's.
   */
  async endpoints(
    config: ClientConfig,
    resolve: (host: string) => Promise<string[]>,
  ): Promise<{ address: string; port: number; protocol: 'tcp' }[]> {
    const setting = config.api_access;
    const out: { address: string; port: number; protocol: 'tcp' }[] = [];
    const add = async (host: string, port: number) => {
      for (const address of await resolve(host).catch(() => []))
        out.push({ address, port, protocol: 'tcp' });
    };
    if (setting === 'auto' || setting === 'relays') {
      const ports = (await this.d.relays.relays(config)).map(tlsPortOf).filter((p) => p !== null);
      for (const p of ports.slice(0, MAX_RELAY_ENDPOINTS)) await add(p.host, p.port);
    } else if (setting !== 'direct') {
      const proxy = parseApiMethod(setting);
      if (proxy.kind === 'socks5' || proxy.kind === 'http') await add(proxy.host, proxy.port);
    }
    return out;
  }

  private noRelaysWords(): string {
    const state = this.d.relays.state;
    if (state.key_from === null)
      return 'no relay list can be checked: no service key is known (netcli init --service-key)';
    if (state.refused) return `no usable relay list: ${state.refused.message}`;
    return 'no relay list with a TLS port is known';
  }

  private async remember(method: ApiMethod): Promise<void> {
    const kind: RememberedApi =
      method.kind === 'direct' || method.kind === 'relays' ? method.kind : 'proxy';
    const network = await this.d.networks.currentNetwork().catch(() => null);
    await this.d.networks.rememberApi(network, kind).catch(() => undefined);
  }

  /** The status's `api_access`. */
  status(): ApiAccessStatus {
    const setting = this.#config?.api_access ?? 'auto';
    const shown = setting === 'auto' ? 'auto' : apiMethodName(parseApiMethod(setting));
    const inUse = this.#inUse;
    const kind = inUse?.kind;
    return {
      ...IDLE_API_ACCESS,
      setting: shown,
      in_use: inUse ? apiMethodName(inUse) : null,
      reason:
        kind === undefined || kind === 'direct'
          ? null
          : REASONS[kind === 'relays' ? 'relays' : 'proxy'],
      relay_list: { ...this.d.relays.state },
    };
  }
}
