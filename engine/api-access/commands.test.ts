// `netcli api-access list|test|use` through the Engine, with fake openers at the seam and a fake
// probe of the service that asks the route for a stream: what the list shows (a proxy without
// its password), a test that never switches, and a switch that holds only once the new method
// reaches the service (the previous setting stays otherwise).
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, type Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';

import type {
  ApiMethod,
  FetchLike,
  RelayFacts,
  RelayListContent,
  SignedRelayList,
} from '../../contracts/index.js';
import { FakeDataPlane } from '../../native/tunnel.fake.js';
import { Engine, type EngineDeps } from '../engine.js';
import { createFakeOs } from '../os/effects.fake.js';
import { engineRefusal } from '../testing/refusal.js';
import { FakeTunnelManager } from '../tunnel/manager.fake.js';
import type { MethodOpeners } from './api-access.js';
import type { ProbeControl } from './commands.js';
import type { RelayTlsPort } from './relay-stream.js';

const SERVICE = 'https://control.test';
const PROXY = 'socks5://me:s3cret@198.51.100.7:1080';

// ---- the service's signed relay list, shipped with the client ------------------------------

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const spki = publicKey.export({ format: 'der', type: 'spki' });
const serviceKey = spki.subarray(spki.length - 32).toString('base64');

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

function signed(relays: RelayFacts[]): SignedRelayList {
  // Issued an hour ago, for a week: valid whenever the test runs.
  const list: RelayListContent = {
    version: 1,
    issued_at: new Date(Date.now() - 3_600_000).toISOString(),
    expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    relays,
  };
  const bytes = Buffer.from(JSON.stringify(list));
  return {
    list: bytes.toString('base64'),
    signature: sign(null, bytes, privateKey).toString('base64'),
    public_key: serviceKey,
  };
}
const SHIPPED = {
  service_key: serviceKey,
  relay_list: signed([
    relay('node_tokyo', '198.18.5.11', 443),
    relay('node_osaka', '198.18.5.12', 8443),
    relay('node_seoul', '198.18.5.13', null),
  ]),
};

// ---- fakes at the seams -----------------------------------------------------------------------

/** What each kind of method does: hand a stream, or fail with this error. */
class FakeOpeners implements MethodOpeners {
  readonly calls: string[] = [];
  fail: Partial<Record<'direct' | 'relay' | 'proxy', Error>> = {};

  direct(host: string, port: number): Promise<Duplex> {
    return this.open('direct', `direct ${host}:${port}`);
  }
  relay(r: RelayTlsPort): Promise<Duplex> {
    return this.open('relay', `relay ${r.address}:${r.port}`);
  }
  proxy(m: Extract<ApiMethod, { host: string }>, host: string, port: number): Promise<Duplex> {
    return this.open('proxy', `proxy ${m.kind}://${m.host}:${m.port} ${host}:${port}`);
  }
  async lookup(host: string): Promise<string[]> {
    return [host];
  }

  private async open(kind: 'direct' | 'relay' | 'proxy', call: string): Promise<Duplex> {
    this.calls.push(call);
    const failure = this.fail[kind];
    if (failure) throw failure;
    return new PassThrough();
  }
}

/** One of the list's relays with a TLS port (the engine picks them at random). */
const oneRelay = expect.stringMatching(/^relay (198\.18\.5\.11:443|198\.18\.5\.12:8443)$/);

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 203.0.113.5:443'), { code: 'ECONNREFUSED' });

/** The service's health route by the route alone: a stream through it, the TLS a pass-through. */
const probes: string[] = [];
const probeControl: ProbeControl = async (route, config) => {
  const url = new URL(config.service ?? 'https://nowhere.invalid');
  probes.push(url.hostname);
  const stream = await route(
    { host: url.hostname, port: Number(url.port || 443) },
    async (raw) => raw,
    new AbortController().signal,
  );
  stream.destroy();
};

const noControlPlane: FetchLike = async () => {
  throw new Error('no control plane in these tests');
};

// ---- one engine per test ----------------------------------------------------------------------

let root: string | null = null;
let engine: Engine | null = null;
afterEach(async () => {
  await engine?.shutdown();
  engine = null;
  probes.length = 0;
  if (root) await rm(root, { recursive: true, force: true });
  root = null;
});

async function start(
  o: { service?: string | null; deps?: Partial<EngineDeps> } = {},
): Promise<{ engine: Engine; openers: FakeOpeners }> {
  root = await mkdtemp(path.join(tmpdir(), 'ferry-api-commands-'));
  const openers = new FakeOpeners();
  engine = new Engine({
    stateDir: path.join(root, 'state'),
    fetch: noControlPlane,
    tunnels: new FakeTunnelManager(),
    ferryKeys: new FakeDataPlane(),
    os: createFakeOs(),
    lookupHost: async (host) => (host === 'control.test' ? ['192.0.2.80'] : [host]),
    apiOpeners: openers,
    probeControl,
    shippedRelayList: SHIPPED,
    ...o.deps,
  });
  await engine.start();
  const service = o.service === undefined ? SERVICE : o.service;
  if (service) await engine.init({ endpoint: service });
  return { engine, openers };
}

// ---- the tests --------------------------------------------------------------------------------

describe('api-access list', () => {
  it('shows direct and relays, with how many relays have a TLS port', async () => {
    const { engine } = await start();
    const list = await engine.apiAccess();
    expect(list).toMatchObject({ setting: 'auto', in_use: null, reason: null });
    expect(list.methods).toEqual([
      { method: 'direct', kind: 'direct', about: 'straight to the service', in_use: false },
      {
        method: 'relays',
        kind: 'relays',
        about: 'through a relay of the signed list (2 with a TLS port)',
        in_use: false,
      },
    ]);
    expect(list.relay_list).toMatchObject({ relays: 3, source: 'shipped', key_from: 'shipped' });
  });

  it('shows the proxy set, without its password', async () => {
    const { engine } = await start();
    await engine.patchConfig({ api_access: PROXY });
    const list = await engine.apiAccess();
    expect(list.setting).toBe('socks5://198.51.100.7:1080');
    expect(list.methods.map((m) => m.method)).toEqual([
      'direct',
      'relays',
      'socks5://198.51.100.7:1080',
    ]);
    expect(list.methods[2]).toEqual({
      method: 'socks5://198.51.100.7:1080',
      kind: 'socks5',
      about: 'through the proxy you set',
      in_use: false,
    });
    expect(JSON.stringify(list)).not.toMatch(/s3cret/);
  });

  it('says no relay is usable yet without a key to check the list with', async () => {
    const { engine } = await start({
      deps: { shippedRelayList: { ...SHIPPED, service_key: null } },
    });
    const list = await engine.apiAccess();
    expect(list.methods[1]?.about).toBe('through a relay of the signed list: none usable yet');
    expect(list.relay_list).toMatchObject({ relays: 0, key_from: null });
  });
});

describe('api-access test', () => {
  it('tries the method alone, without switching to it', async () => {
    const { engine, openers } = await start();
    const test = await engine.testApiAccess({ method: 'relays' });
    expect(test).toEqual({
      method: 'relays',
      ok: true,
      message: expect.stringMatching(/^reached the service in \d+ ms$/),
      elapsed_ms: expect.any(Number),
    });
    expect(probes).toEqual(['control.test']);
    expect(openers.calls).toEqual([oneRelay]);
    expect((await engine.getConfig()).api_access).toBe('auto');
    expect(engine.status().api_access.setting).toBe('auto');
  });

  it('says why a method fails, naming no address, and still does not switch', async () => {
    const { engine, openers } = await start();
    openers.fail.direct = refused();
    const test = await engine.testApiAccess({ method: 'direct' });
    expect(test).toMatchObject({
      method: 'direct',
      ok: false,
      message: 'the connection was refused',
    });
    expect(openers.calls).toEqual(['direct control.test:443']);
    expect((await engine.getConfig()).api_access).toBe('auto');
  });

  it('tries a proxy by its URL, named without its password', async () => {
    const { engine, openers } = await start();
    const test = await engine.testApiAccess({ method: PROXY });
    expect(test).toMatchObject({ method: 'socks5://198.51.100.7:1080', ok: true });
    expect(openers.calls).toEqual(['proxy socks5://198.51.100.7:1080 control.test:443']);
    expect((await engine.getConfig()).api_access).toBe('auto');
  });
});

describe('api-access use', () => {
  it('switches once the method reaches the service', async () => {
    const { engine, openers } = await start();
    const use = await engine.useApiAccess({ method: 'relays' });
    expect(use).toMatchObject({ setting: 'relays', test: { method: 'relays', ok: true } });
    expect(openers.calls).toEqual([oneRelay]);
    expect((await engine.getConfig()).api_access).toBe('relays');
    expect(engine.status().api_access.setting).toBe('relays');
  });

  it('keeps a proxy’s password in the configuration, and shows the setting without it', async () => {
    const { engine } = await start();
    const use = await engine.useApiAccess({ method: PROXY });
    expect(use.setting).toBe('socks5://198.51.100.7:1080');
    expect(JSON.stringify(use)).not.toMatch(/s3cret/);
    expect((await engine.getConfig()).api_access).toBe(PROXY);
  });

  it('keeps the previous setting when the new method cannot reach the service', async () => {
    const { engine, openers } = await start();
    await engine.useApiAccess({ method: 'relays' });
    openers.fail.direct = refused();
    const e = await engineRefusal(engine.useApiAccess({ method: 'direct' }));
    expect(e.code).toBe('api-access-failed');
    expect(e.message).toBe(
      'direct cannot reach the service (the connection was refused): still using relays',
    );
    expect((await engine.getConfig()).api_access).toBe('relays');
    expect(engine.status().api_access.setting).toBe('relays');
  });

  it('goes back to auto without trying anything', async () => {
    const { engine, openers } = await start();
    await engine.useApiAccess({ method: 'relays' });
    openers.calls.length = 0;
    probes.length = 0;
    expect(await engine.useApiAccess({ method: ' AUTO ' })).toMatchObject({
      setting: 'auto',
      test: { method: 'auto', ok: true },
    });
    expect(probes).toEqual([]);
    expect(openers.calls).toEqual([]);
    expect((await engine.getConfig()).api_access).toBe('auto');
  });
});

describe('what api-access refuses', () => {
  it('refuses a method it does not know, saying what one is, the setting unchanged', async () => {
    const { engine, openers } = await start();
    for (const method of ['carrier-pigeon', 'https://proxy.example:443', 'http://me:pw@h:3128']) {
      const used = await engineRefusal(engine.useApiAccess({ method }));
      expect(used.code, method).toBe('api-access-invalid');
      const tested = await engineRefusal(engine.testApiAccess({ method }));
      expect(tested.code, method).toBe('api-access-invalid');
      expect(tested.message).not.toMatch(/pw@/);
    }
    expect((await engineRefusal(engine.useApiAccess({ method: 'carrier-pigeon' }))).message).toBe(
      'not a method: direct, relays, or a proxy URL socks5://[user:password@]host:port or http://host:port (an IP address or a name; no path)',
    );
    expect(openers.calls).toEqual([]);
    expect((await engine.getConfig()).api_access).toBe('auto');
  });

  it('needs a service to try a method against', async () => {
    const { engine } = await start({ service: null });
    const e = await engineRefusal(engine.testApiAccess({ method: 'direct' }));
    expect(e.code).toBe('service-not-configured');
    expect((await engineRefusal(engine.useApiAccess({ method: 'relays' }))).code).toBe(
      'service-not-configured',
    );
  });

  it('cannot try a method in an engine without a probe of the service', async () => {
    const { engine } = await start({ deps: { probeControl: undefined } });
    expect((await engineRefusal(engine.testApiAccess({ method: 'direct' }))).code).toBe(
      'not-supported',
    );
    expect((await engine.getConfig()).api_access).toBe('auto');
  });
});
