// API access's route, with fake openers at the seam (MethodOpeners) and the real relay lists and
// network memory on a temp state dir: auto's order and what it remembers, a method failing or
// hanging and the next one tried, one method only, the words of each failure (never an
// address), the status, and where the kill switch lets the engine's control sockets go.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, type Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  apiMethodName,
  CLIENT_CONFIG_DEFAULTS,
  type ApiMethod,
  type ClientConfig,
  type RelayFacts,
  type RelayListContent,
  type SignedRelayList,
} from '../../contracts/index.js';
import type { NetworkIdentity } from '../../platform/os/network-identity.js';
import { NetworkMemory } from '../transports/network-memory.js';
import {
  ApiAccess,
  ApiAccessError,
  DIRECT_BUDGET_MS,
  failureWords,
  RELAY_BUDGET_MS,
  RELAYS_PER_CALL,
  type FinishStream,
  type MethodOpeners,
} from './api-access.js';
import { RelayLists } from './relay-lists.js';
import type { RelayTlsPort } from './relay-stream.js';
import { keyPair, signedBy } from '../catalog/testing/signed-relay-list.js';

const NOW = Date.parse('2026-11-28T04:00:00Z');
const TARGET = { host: 'control.test', port: 443 };
const PROXY = 'socks5://me:s3cret@198.51.100.7:1080';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function stateDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ferry-api-access-'));
  dirs.push(d);
  return path.join(d, 'state');
}

// ---- a service's signed relay list ------------------------------------------------------------

const service = keyPair();

function relay(id: string, host: string, tlsPort: number | null): RelayFacts {
  return {
    id,
    region: 'asia-east',
    endpoint_host: host,
    wireguard_port: 51820,
    wireguard_public_key: `wg-${id}`,
    ferry_port: 51900,
    ferry_public_key: `fy-${id}`,
    tls_port: tlsPort,
    tls_server_name: tlsPort === null ? null : 'cover.example',
  };
}
const TOKYO = relay('node_tokyo', '198.18.5.11', 443);
const OSAKA = relay('node_osaka', 'relay-osaka.example', 8443);
const SEOUL = relay('node_seoul', '198.18.5.13', null);

const content = (
  relays: RelayFacts[],
  expiresAt = '2026-12-05T04:00:00.000Z',
): RelayListContent => ({
  version: 1,
  issued_at: '2026-11-28T03:00:00.000Z',
  expires_at: expiresAt,
  relays,
});

// ---- fakes at the seam ------------------------------------------------------------------------

/** What an opener does: hand a stream, fail at once, or hang until its signal aborts. */
type Outcome = 'ok' | 'hang' | Error;

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
const refused = () => errno('ECONNREFUSED', 'connect ECONNREFUSED 203.0.113.5:443');
const reset = () => errno('ECONNRESET', 'read ECONNRESET');

const ADDRESSES: Record<string, string[]> = { 'relay-osaka.example': ['198.18.5.12'] };

class FakeOpeners implements MethodOpeners {
  /** Each call, in order: `direct host:port`, `relay address:port`, `proxy url host:port`. */
  readonly calls: string[] = [];
  /** The streams handed out, by the call that got each. */
  readonly streams = new Map<string, Duplex>();
  /** The reasons the signals of hung calls aborted with. */
  readonly aborted: unknown[] = [];
  readonly #waiting: { prefix: string; resolve: () => void }[] = [];

  constructor(
    public outcomes: {
      direct?: Outcome;
      relays?: Record<string, Outcome>;
      proxy?: Outcome;
    } = {},
  ) {}

  direct(host: string, port: number, signal: AbortSignal): Promise<Duplex> {
    return this.open(`direct ${host}:${port}`, this.outcomes.direct ?? 'ok', signal);
  }

  relay(r: RelayTlsPort, signal: AbortSignal): Promise<Duplex> {
    return this.open(
      `relay ${r.address}:${r.port}`,
      this.outcomes.relays?.[r.address] ?? 'ok',
      signal,
    );
  }

  proxy(
    method: Extract<ApiMethod, { host: string }>,
    host: string,
    port: number,
    signal: AbortSignal,
  ): Promise<Duplex> {
    return this.open(
      `proxy ${apiMethodName(method)} ${host}:${port}`,
      this.outcomes.proxy ?? 'ok',
      signal,
    );
  }

  async lookup(host: string): Promise<string[]> {
    return ADDRESSES[host] ?? (/^[\d.]+$/.test(host) ? [host] : []);
  }

  /** Resolves once a call starting with `prefix` was made. */
  called(prefix: string): Promise<void> {
    if (this.calls.some((c) => c.startsWith(prefix))) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ prefix, resolve }));
  }

  private async open(call: string, outcome: Outcome, signal: AbortSignal): Promise<Duplex> {
    this.calls.push(call);
    for (const w of this.#waiting.filter((x) => call.startsWith(x.prefix))) w.resolve();
    if (outcome instanceof Error) throw outcome;
    if (outcome === 'hang')
      return new Promise((_, reject) =>
        signal.addEventListener(
          'abort',
          () => {
            this.aborted.push(signal.reason);
            reject(signal.reason);
          },
          { once: true },
        ),
      );
    const stream = new PassThrough();
    this.streams.set(call, stream);
    return stream;
  }
}

/** The caller's TLS, which the fakes' streams pass as they are. */
const finished: FinishStream = async (raw) => raw;

const HOME: NetworkIdentity = { gatewayMac: 'aa:bb:cc:00:11:22', prefix: '192.168.1.0/24' };
const CAFE: NetworkIdentity = { gatewayMac: 'de:ad:be:ef:00:01', prefix: '10.0.0.0/24' };

interface Setup {
  api: ApiAccess;
  openers: FakeOpeners;
  lists: RelayLists;
  networks: NetworkMemory;
  dir: string;
  /** The network the host is on (changed by the test). */
  on: { network: NetworkIdentity | null };
}

function setup(
  o: {
    dir?: string;
    openers?: FakeOpeners;
    relays?: RelayFacts[] | null;
    serviceKey?: string | null;
    list?: SignedRelayList;
    config?: Partial<ClientConfig>;
    random?: () => number;
    network?: NetworkIdentity | null;
  } = {},
): Setup {
  const dir = o.dir ?? stateDir();
  const on = { network: o.network === undefined ? HOME : o.network };
  const openers = o.openers ?? new FakeOpeners();
  const relays = o.relays === undefined ? [TOKYO, OSAKA, SEOUL] : o.relays;
  const lists = new RelayLists({
    stateDir: dir,
    shipped: {
      service_key: o.serviceKey === undefined ? service.publicKey : o.serviceKey,
      relay_list: o.list ?? (relays === null ? null : signedBy(service, content(relays))),
    },
    now: () => NOW,
  });
  const networks = new NetworkMemory(dir, { read: async () => on.network });
  const api = new ApiAccess({
    openers,
    relays: lists,
    networks,
    // Tokyo before Osaka unless a test says otherwise.
    random: o.random ?? counter(),
  });
  api.note(config(o.config));
  return { api, openers, lists, networks, dir, on };
}

/** A `random` that rises call after call: relays are tried in the list's order. */
function counter(): () => number {
  let n = 0;
  return () => (n += 1) / 1000;
}

function config(over: Partial<ClientConfig> = {}): ClientConfig {
  return { ...CLIENT_CONFIG_DEFAULTS, service: 'https://control.test', ...over };
}

const names = (methods: ApiMethod[]) => methods.map(apiMethodName);

function call(api: ApiAccess, finish: FinishStream = finished, signal?: AbortSignal) {
  return api.route(TARGET, finish, signal ?? new AbortController().signal);
}

async function failure(p: Promise<unknown>): Promise<ApiAccessError> {
  const e = await p.then(
    () => {
      throw new Error('expected the route to fail, but it got through');
    },
    (x: unknown) => x,
  );
  if (e instanceof ApiAccessError) return e;
  throw new Error(`expected an ApiAccessError, got ${String(e)}`);
}

// ---- the tests --------------------------------------------------------------------------------

describe('auto’s order', () => {
  it('tries direct, then relays, on a network it knows nothing of', async () => {
    const { api, openers } = setup({ openers: new FakeOpeners({ direct: refused() }) });
    expect(names(await api.order('auto'))).toEqual(['direct', 'relays']);
    const stream = await call(api);
    expect(openers.calls).toEqual(['direct control.test:443', 'relay 198.18.5.11:443']);
    expect(stream).toBe(openers.streams.get('relay 198.18.5.11:443'));
    expect(api.inUse).toEqual({ kind: 'relays' });
  });

  it('tries first what got through in this run, until the network changes', async () => {
    const { api, openers, on } = setup({
      openers: new FakeOpeners({ direct: refused() }),
      network: null,
    });
    await call(api);
    expect(names(await api.order('auto'))).toEqual(['relays', 'direct']);
    openers.calls.length = 0;
    await call(api);
    expect(openers.calls).toEqual(['relay 198.18.5.11:443']);
    // Off any network it can name, nothing was remembered: a new network starts from direct.
    on.network = CAFE;
    api.networkChanged();
    expect(names(await api.order('auto'))).toEqual(['direct', 'relays']);
  });

  it('starts with relays on a network where relays got through before, and only there', async () => {
    const dir = stateDir();
    const first = setup({ dir, openers: new FakeOpeners({ direct: refused() }) });
    await call(first.api);
    const here = await first.networks.currentNetwork();
    await vi.waitFor(async () => expect(await first.networks.recallApi(here)).toBe('relays'));

    // A new engine on the same state dir and network: relays first, before anything got through.
    const again = setup({ dir });
    expect(names(await again.api.order('auto'))).toEqual(['relays', 'direct']);
    await call(again.api);
    expect(again.openers.calls).toEqual(['relay 198.18.5.11:443']);

    // Elsewhere, direct first.
    again.on.network = CAFE;
    again.api.networkChanged();
    expect(names(await again.api.order('auto'))).toEqual(['direct', 'relays']);
  });

  it('tries direct first while a tunnel is up (it goes through the tunnel)', async () => {
    const dir = stateDir();
    const first = setup({ dir, openers: new FakeOpeners({ direct: refused() }) });
    await call(first.api);
    await vi.waitFor(async () =>
      expect(await first.networks.recallApi(await first.networks.currentNetwork())).toBe('relays'),
    );
    const { api, openers } = setup({ dir });
    api.tunnel(true);
    expect(names(await api.order('auto'))).toEqual(['direct', 'relays']);
    await call(api);
    expect(openers.calls).toEqual(['direct control.test:443']);
  });

  it('once the tunnel is down, does not put first what got through only inside it', async () => {
    const dir = stateDir();
    const first = setup({ dir, openers: new FakeOpeners({ direct: refused() }) });
    await call(first.api);
    await vi.waitFor(async () =>
      expect(await first.networks.recallApi(await first.networks.currentNetwork())).toBe('relays'),
    );
    const { api } = setup({ dir });
    api.tunnel(true);
    await call(api);
    expect(api.inUse).toEqual({ kind: 'direct' });
    api.tunnel(false);
    // Direct went through the tunnel; out here, this network is known to block it.
    expect(names(await api.order('auto'))).toEqual(['relays', 'direct']);
  });
});

describe('one method after another', () => {
  it('ends a direct connection that hangs at its budget, then a relay that hangs at its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { api, openers } = setup({
      openers: new FakeOpeners({ direct: 'hang', relays: { '198.18.5.11': 'hang' } }),
    });
    const route = call(api);
    await openers.called('direct');
    await vi.advanceTimersByTimeAsync(DIRECT_BUDGET_MS - 1);
    expect(openers.calls).toEqual(['direct control.test:443']);
    await vi.advanceTimersByTimeAsync(1);
    await openers.called('relay 198.18.5.11');
    await vi.advanceTimersByTimeAsync(RELAY_BUDGET_MS - 1);
    expect(openers.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await expect(route).resolves.toBe(openers.streams.get('relay 198.18.5.12:8443'));
    expect(openers.calls).toEqual([
      'direct control.test:443',
      'relay 198.18.5.11:443',
      'relay 198.18.5.12:8443',
    ]);
    expect(openers.aborted).toEqual([
      expect.objectContaining({ name: 'TimeoutError' }),
      expect.objectContaining({ name: 'TimeoutError' }),
    ]);
  });

  it('counts a stream whose TLS fails (another certificate) as the method failing', async () => {
    const { api, openers } = setup();
    const forged = Object.assign(
      new Error("Hostname/IP does not match certificate's altnames: IP: 203.0.113.5"),
      { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
    );
    const finish: FinishStream = async (raw) => {
      if (raw === openers.streams.get('direct control.test:443')) throw forged;
      return raw;
    };
    const stream = await call(api, finish);
    expect(stream).toBe(openers.streams.get('relay 198.18.5.11:443'));
    expect(api.inUse).toEqual({ kind: 'relays' });

    // When every method's TLS fails, the words say so, naming no address.
    const all = setup();
    const e = await failure(
      call(all.api, async () => {
        throw forged;
      }),
    );
    expect(e.failures[0]).toEqual({
      method: 'direct',
      message: 'the certificate is not the service’s (the name or address may be forged)',
    });
    expect(e.message).not.toMatch(/203\.0\.113/);
  });

  it('tries at most RELAYS_PER_CALL relays with a TLS port, in the order random gives', async () => {
    const keys = [0.9, 0.1, 0.5];
    const { api, openers } = setup({
      openers: new FakeOpeners({ relays: { '198.18.5.12': refused(), '198.18.5.14': reset() } }),
      relays: [TOKYO, OSAKA, relay('node_nagoya', '198.18.5.14', 443), SEOUL],
      config: { api_access: 'relays' },
      random: () => keys.shift() ?? 0.99,
    });
    const e = await failure(call(api));
    // Osaka (0.1), then Nagoya (0.5); Tokyo (0.9) waits for another call; Seoul has no TLS port.
    expect(RELAYS_PER_CALL).toBe(2);
    expect(openers.calls).toEqual(['relay 198.18.5.12:8443', 'relay 198.18.5.14:443']);
    // The last relay's failure tells the method's.
    expect(e.failures).toEqual([
      { method: 'relays', message: 'the connection was reset (a censor may cut it)' },
    ]);
  });

  it('ends at once with the caller’s reason when the caller gives up, trying nothing more', async () => {
    const { api, openers } = setup({ openers: new FakeOpeners({ direct: 'hang' }) });
    const caller = new AbortController();
    const route = call(api, finished, caller.signal);
    await openers.called('direct');
    const gone = new Error('the user went away');
    caller.abort(gone);
    await expect(route).rejects.toBe(gone);
    expect(openers.calls).toEqual(['direct control.test:443']);
  });
});

describe('a setting of one method', () => {
  it('uses relays only, never direct', async () => {
    const { api, openers } = setup({ config: { api_access: 'relays' } });
    expect(names(await api.order('relays'))).toEqual(['relays']);
    await call(api);
    expect(openers.calls).toEqual(['relay 198.18.5.11:443']);
  });

  it('uses direct only, and fails with direct’s failure alone', async () => {
    const { api, openers } = setup({
      openers: new FakeOpeners({ direct: refused() }),
      config: { api_access: 'direct' },
    });
    const e = await failure(call(api));
    expect(openers.calls).toEqual(['direct control.test:443']);
    expect(e.failures).toEqual([{ method: 'direct', message: 'the connection was refused' }]);
  });

  it('uses the proxy only, to the control plane’s host, named without its password', async () => {
    const { api, openers } = setup({
      openers: new FakeOpeners({ proxy: refused() }),
      config: { api_access: PROXY },
    });
    const e = await failure(call(api));
    expect(openers.calls).toEqual(['proxy socks5://198.51.100.7:1080 control.test:443']);
    expect(e.failures).toEqual([
      { method: 'socks5://198.51.100.7:1080', message: 'the connection was refused' },
    ]);
    expect(e.message).not.toMatch(/s3cret/);
  });
});

describe('relays that cannot be used', () => {
  const relaysFailure = async (o: Parameters<typeof setup>[0]) => {
    const { api, openers } = setup({ ...o, config: { api_access: 'relays' } });
    const e = await failure(call(api));
    expect(openers.calls).toEqual([]);
    return e.failures;
  };

  it('says no key is known to check a list with', async () => {
    expect(await relaysFailure({ serviceKey: null })).toEqual([
      {
        method: 'relays',
        message:
          'no relay list can be checked: no service key is known (netcli init --service-key)',
      },
    ]);
  });

  it('says why the list was refused', async () => {
    const expired = signedBy(service, content([TOKYO], '2026-11-28T03:59:59.000Z'));
    expect(await relaysFailure({ list: expired })).toEqual([
      {
        method: 'relays',
        message:
          'no usable relay list: the relay list expired on 2026-11-28: a newer one comes from the service',
      },
    ]);
    const other = signedBy(keyPair(), content([TOKYO]));
    expect((await relaysFailure({ list: other }))[0]?.message).toBe(
      'no usable relay list: the relay list is signed with another key than the service’s: it was not made by this service',
    );
  });

  it('says no list with a TLS port is known, with none or only relays without one', async () => {
    const none = 'no relay list with a TLS port is known';
    expect(await relaysFailure({ relays: null })).toEqual([{ method: 'relays', message: none }]);
    expect(await relaysFailure({ relays: [SEOUL] })).toEqual([{ method: 'relays', message: none }]);
  });

  it('says a relay’s name did not resolve', async () => {
    const { api } = setup({
      relays: [relay('node_x', 'nowhere.example', 443)],
      config: { api_access: 'relays' },
    });
    expect((await failure(call(api))).failures).toEqual([
      { method: 'relays', message: 'no relay got through (a relay’s name did not resolve)' },
    ]);
  });
});

describe('ApiAccessError', () => {
  it('lists each method’s failure in words, in the order they were tried', async () => {
    const { api } = setup({
      openers: new FakeOpeners({
        direct: refused(),
        relays: { '198.18.5.11': refused(), '198.18.5.12': reset() },
      }),
    });
    const e = await failure(call(api));
    expect(e.failures).toEqual([
      { method: 'direct', message: 'the connection was refused' },
      { method: 'relays', message: 'the connection was reset (a censor may cut it)' },
    ]);
    expect(e.message).toBe(
      'direct: the connection was refused; relays: the connection was reset (a censor may cut it)',
    );
    expect(api.inUse).toBeNull();
    expect(new ApiAccessError([]).message).toBe('no way to reach the service is known');
  });
});

describe('what is remembered of a network', () => {
  it('is written under auto only, and not while a tunnel is up', async () => {
    const s = setup({ config: { api_access: 'relays' } });
    const written = vi.spyOn(s.networks, 'rememberApi');
    const here = await s.networks.currentNetwork();
    await call(s.api);
    expect(s.api.inUse).toEqual({ kind: 'relays' });
    s.api.note(config({ api_access: 'auto' }));
    s.api.tunnel(true);
    await call(s.api);
    expect(s.api.inUse).toEqual({ kind: 'direct' });
    // The one write that counts: auto, no tunnel (the others would have come before it).
    s.api.tunnel(false);
    s.openers.outcomes.direct = refused();
    await call(s.api);
    expect(s.api.inUse).toEqual({ kind: 'relays' });
    await vi.waitFor(() => expect(written).toHaveBeenCalled());
    expect(written.mock.calls).toEqual([[here, 'relays']]);
    expect(await s.networks.recallApi(here)).toBe('relays');
  });

  it('is not written by a proxy set, and never names one', async () => {
    const s = setup({ config: { api_access: PROXY } });
    const written = vi.spyOn(s.networks, 'rememberApi');
    const here = await s.networks.currentNetwork();
    await call(s.api);
    expect(s.api.inUse).toMatchObject({ kind: 'socks5' });
    // Back to auto, the proxy gone: what gets through now is remembered, and it alone.
    s.openers.outcomes.proxy = refused();
    s.api.note(config({ api_access: 'auto' }));
    await call(s.api);
    expect(s.api.inUse).toEqual({ kind: 'direct' });
    await vi.waitFor(() => expect(written).toHaveBeenCalled());
    expect(written.mock.calls).toEqual([[here, 'direct']]);
    const saved = readFileSync(path.join(s.dir, 'transports.json'), 'utf8');
    expect(saved).not.toMatch(/198\.51|s3cret|socks5/);
  });
});

describe('the status', () => {
  it('tells the setting, the method in use, and why when it is not direct', async () => {
    const { api, openers } = setup({ openers: new FakeOpeners({ direct: refused() }) });
    expect(api.status()).toMatchObject({ setting: 'auto', in_use: null, reason: null });
    await call(api);
    expect(api.status()).toEqual({
      setting: 'auto',
      in_use: 'relays',
      reason: 'the service cannot be reached directly from here: reached through a relay',
      relay_list: {
        relays: 3,
        source: 'shipped',
        issued_at: '2026-11-28T03:00:00.000Z',
        expires_at: '2026-12-05T04:00:00.000Z',
        refused: null,
        key_from: 'shipped',
      },
    });
    openers.outcomes.direct = 'ok';
    api.tunnel(true);
    await call(api);
    expect(api.status()).toMatchObject({ in_use: 'direct', reason: null });
  });

  it('shows a proxy without its password', async () => {
    const { api } = setup({ config: { api_access: PROXY } });
    await call(api);
    const status = api.status();
    expect(status).toMatchObject({
      setting: 'socks5://198.51.100.7:1080',
      in_use: 'socks5://198.51.100.7:1080',
      reason: 'the service is reached through the proxy you set',
    });
    expect(JSON.stringify(status)).not.toMatch(/s3cret/);
  });
});

describe('the kill switch’s endpoints', () => {
  const resolve = async (host: string) => {
    if (host === 'proxy.example') return ['198.51.100.9'];
    const found = ADDRESSES[host];
    if (found) return found;
    if (/^[\d.]+$/.test(host)) return [host];
    throw errno('ENOTFOUND', `getaddrinfo ENOTFOUND ${host}`);
  };
  const tcp = (address: string, port: number) => ({ address, port, protocol: 'tcp' });

  it('are the relays’ TLS ports under auto and relays, skipping a name that does not resolve', async () => {
    const { api } = setup({
      relays: [TOKYO, OSAKA, SEOUL, relay('node_x', 'nowhere.example', 443)],
    });
    const relays = [tcp('198.18.5.11', 443), tcp('198.18.5.12', 8443)];
    expect(await api.endpoints(config({ api_access: 'auto' }), resolve)).toEqual(relays);
    expect(await api.endpoints(config({ api_access: 'relays' }), resolve)).toEqual(relays);
  });

  it('are a proxy’s address and port, and none for direct', async () => {
    const { api } = setup();
    expect(await api.endpoints(config({ api_access: PROXY }), resolve)).toEqual([
      tcp('198.51.100.7', 1080),
    ]);
    expect(
      await api.endpoints(config({ api_access: 'http://proxy.example:3128' }), resolve),
    ).toEqual([tcp('198.51.100.9', 3128)]);
    expect(await api.endpoints(config({ api_access: 'direct' }), resolve)).toEqual([]);
  });

  it('are none for relays without a key to check the list with', async () => {
    const { api } = setup({ serviceKey: null });
    expect(await api.endpoints(config({ api_access: 'relays' }), resolve)).toEqual([]);
  });
});

describe('failureWords', () => {
  const timeout = 'no answer in time (the address may be blocked)';
  const cut = 'the connection was reset (a censor may cut it)';
  const cert = 'the certificate is not the service’s (the name or address may be forged)';

  it('says what a censor’s doing looks like from here', () => {
    expect(failureWords(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe(timeout);
    expect(failureWords(new DOMException('The operation timed out.', 'TimeoutError'))).toBe(
      timeout,
    );
    expect(failureWords(errno('ETIMEDOUT', 'connect ETIMEDOUT 203.0.113.5:443'))).toBe(timeout);
    expect(failureWords(errno('ECONNREFUSED', 'connect ECONNREFUSED 203.0.113.5:443'))).toBe(
      'the connection was refused',
    );
    expect(failureWords(errno('ECONNRESET', 'read ECONNRESET'))).toBe(cut);
    expect(failureWords(new Error('socket hang up'))).toBe(cut);
    expect(failureWords(errno('ENOTFOUND', 'getaddrinfo ENOTFOUND control.test'))).toBe(
      'the name does not resolve',
    );
    expect(failureWords(errno('EAI_AGAIN', 'getaddrinfo EAI_AGAIN control.test'))).toBe(
      'the name does not resolve',
    );
    expect(failureWords(errno('EHOSTUNREACH', 'connect EHOSTUNREACH 203.0.113.5:443'))).toBe(
      'no route to the service',
    );
    for (const [code, message] of [
      ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"],
      ['CERT_HAS_EXPIRED', 'certificate has expired'],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
      ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
    ])
      expect(failureWords(errno(code!, message!))).toBe(cert);
  });

  it('reads the innermost cause (a call’s error wraps fetch’s, which wraps the socket’s)', () => {
    const socket = errno('ECONNRESET', 'read ECONNRESET');
    const fetchFailed = new TypeError('fetch failed', { cause: socket });
    const callFailed = new Error('the service could not be reached', { cause: fetchFailed });
    expect(failureWords(callFailed)).toBe(cut);
    // API access's own error inside: its words, as they are.
    const route = new ApiAccessError([{ method: 'direct', message: 'the connection was refused' }]);
    expect(failureWords(new TypeError('fetch failed', { cause: route }))).toBe(
      'direct: the connection was refused',
    );
    expect(failureWords(route)).toBe('direct: the connection was refused');
    // Our own words pass as they are.
    expect(failureWords(new Error('the proxy refused the connection (HTTP 407)'))).toBe(
      'the proxy refused the connection (HTTP 407)',
    );
    expect(failureWords('no route')).toBe('no route');
  });

  const ipv4 = /\d{1,3}(?:\.\d{1,3}){3}|\d{1,3}\.\d{1,3}\.\d{1,3}/;
  const ipv6 = /[0-9a-f]{0,4}:[0-9a-f]{0,4}:/i;
  const addressFree = (messages: string[]) => {
    for (const message of messages) {
      const words = failureWords(new Error(message));
      expect(words, message).not.toMatch(ipv4);
      expect(words, message).not.toMatch(ipv6);
      expect(words, message).not.toMatch(/203\.0|113\.5|2001|db8|fe80|ffff|ff9b/i);
      expect(words, message).toMatch(/^(connect EPERM|cannot reach|bad answer)/);
    }
  };

  it('never returns an IPv4 or IPv6 address found in a message', () => {
    addressFree([
      'connect EPERM 203.0.113.5:443',
      'cannot reach the proxy: connect EPERM 203.0.113.5',
      'bad answer from 10.1.2.3 via 192.168.1.1:1080',
      'connect EPERM 2001:db8::1',
      'connect EPERM [2001:db8:0:0:1:0:0:1]:443',
      'connect EPERM fe80::1ff:fe23:4567:890a%eth0 port 443',
      'connect EPERM ::1',
      'connect EPERM 2001:DB8::A',
    ]);
  });

  it('never returns the IPv4 address inside an IPv6 one (IPv4-mapped, NAT64)', () => {
    addressFree([
      'connect EPERM ::ffff:203.0.113.5',
      'connect EPERM [::ffff:203.0.113.5]:443',
      'connect EPERM 64:ff9b::203.0.113.5 port 443',
    ]);
  });
});
