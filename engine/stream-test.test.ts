// stream-test against a local HTTP server standing in for a platform (shaped as the shipped
// table's entries expect): each verdict, the catalogue's country read from a redirect, a body and
// a fixed country, bounded time, the platforms file, and what comes before any probe.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SHIPPED_PLATFORMS,
  StreamTestResult,
  type PlatformDef,
  type PlatformTable,
  type Region,
} from '../contracts/index.js';
import { FakeDataPlane } from '../native/tunnel.fake.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane, type Harness } from '../server/testing/control-plane-harness.js';
import { Engine } from './engine.js';
import { FerryError } from './errors.js';
import { createFakeOs } from './os/effects.fake.js';
import { FakeTunnelManager } from './tunnel/manager.fake.js';
import { loadPlatformTable, probePlatform, runStreamTest } from './stream-test.js';

type Handler = (q: IncomingMessage, s: ServerResponse) => void;

let server: Server;
let base: string;
const routes = new Map<string, Handler>();

beforeAll(async () => {
  server = createServer((q, s) => {
    // By the first path segment; the rest (Netflix's /title/... and /<cc>/title/...) to ''.
    const first = new URL(q.url ?? '/', 'http://x').pathname.split('/')[1] ?? '';
    const route = routes.get(first) ?? routes.get('');
    if (route) route(q, s);
    else s.writeHead(500).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A shipped entry pointed at the local server's `/<route>/...`. */
function at(id: string, route: string, rest = ''): PlatformDef {
  const def = SHIPPED_PLATFORMS[id]!;
  return { ...def, probe: { ...def.probe, url: `${base}/${route}${rest}` } };
}

/** Netflix's title page as the table expects it, the country chosen by the test. */
function netflixLike(answer: () => string): Handler {
  return (q, s) => {
    const a = answer();
    const parts = (q.url ?? '').split('/').filter(Boolean); // [(cc,) 'title', id]
    if (a === 'proxy') return void s.writeHead(404).end('<html>Not found</html>');
    if (a === 'unavailable') return void s.writeHead(403).end('<html>Not available</html>');
    if (a === 'US' || parts.length === 3) return void s.end('<html>Ninjago</html>');
    s.writeHead(302, { location: `/${a.toLowerCase()}-en/title/${parts.at(-1)}` });
    s.end();
  };
}

const REGIONS: Region[] = [
  {
    id: 'asia-east',
    name: 'Asia East (Tokyo)',
    area: 'asia',
    country: 'JP',
    load: 0.1,
    nodes_healthy: 1,
    platforms_verified: [],
    allowed: true,
    entry: false,
  },
  {
    id: 'global',
    name: 'Global',
    area: 'global',
    country: null,
    load: 0.1,
    nodes_healthy: 1,
    platforms_verified: [],
    allowed: true,
    entry: false,
  },
  {
    id: 'uk',
    name: 'UK',
    area: 'europe',
    country: 'GB',
    load: 0.1,
    nodes_healthy: 1,
    platforms_verified: [],
    allowed: true,
    entry: false,
  },
];

async function streamTest(
  table: PlatformTable,
  platform: string,
  nodeRegion: string | null = 'asia-east',
  opts: { timeoutMs?: number; regions?: () => Promise<readonly Region[]> } = {},
) {
  const result = await runStreamTest({
    table,
    platform,
    nodeRegion,
    regions: opts.regions ?? (async () => REGIONS),
    timeoutMs: opts.timeoutMs,
  });
  return StreamTestResult.parse(result);
}

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (e instanceof FerryError) return e;
  throw new Error(`expected a FerryError, got ${String(e)}`);
}

/** The country the Netflix stand-in (every path no other route takes) answers with. */
let exitCountry = 'JP';
routes.set(
  '',
  netflixLike(() => exitCountry),
);

describe('stream-test', () => {
  // The server's address is known once it listens.
  const table = (): PlatformTable => ({
    ...SHIPPED_PLATFORMS,
    netflix: at('netflix', 'title', '/81280792'),
  });

  it('reads the catalogue from the redirect and finds it matches the node’s country', async () => {
    exitCountry = 'JP';
    const r = await streamTest(table(), 'Netflix');
    expect(r).toMatchObject({
      platform: 'netflix',
      name: 'Netflix',
      reachable: true,
      http_status: 200,
      catalog_region: 'JP',
      node_region: 'asia-east',
      node_country: 'JP',
      matches: true,
      verdict: 'ok',
      fix: null,
    });
    expect(r.detail).toMatch(/JP catalogue, as expected for asia-east \(JP\)/);
    expect(Date.parse(r.checked_at)).not.toBeNaN();
  });

  it('says region-mismatch when the platform places the node elsewhere, with the fix', async () => {
    exitCountry = 'US';
    const r = await streamTest(table(), 'netflix');
    expect(r).toMatchObject({ catalog_region: 'US', matches: false, verdict: 'region-mismatch' });
    expect(r.fix).toMatch(/netcli connect --mode stream --platform netflix --region asia-east/);
    expect(r.fix).toMatch(/JP catalogue/);
  });

  it('has no match to make through a region without a country', async () => {
    exitCountry = 'DE';
    const r = await streamTest(table(), 'netflix', 'global');
    expect(r).toMatchObject({
      catalog_region: 'DE',
      node_country: null,
      matches: null,
      verdict: 'ok',
    });
  });

  it('says proxy-detected when the platform flags the node, with the fix', async () => {
    exitCountry = 'proxy';
    const r = await streamTest(table(), 'netflix');
    expect(r).toMatchObject({
      reachable: true,
      http_status: 404,
      catalog_region: null,
      matches: null,
      verdict: 'proxy-detected',
      fix: 'this node is flagged by Netflix: netcli connect --mode stream --platform netflix picks a verified one',
    });
  });

  it('says unavailable where the platform is not offered, naming a region where it is', async () => {
    exitCountry = 'unavailable';
    const netflix = await streamTest(table(), 'netflix');
    expect(netflix).toMatchObject({ reachable: true, verdict: 'unavailable' });
    expect(netflix.fix).toMatch(/netcli region list/);

    routes.set('bbc', (_q, s) => s.end('JS_callbacks0({"result":"geolocation"});'));
    const bbc = await streamTest({ 'bbc-iplayer': at('bbc-iplayer', 'bbc') }, 'iplayer');
    expect(bbc).toMatchObject({ platform: 'bbc-iplayer', verdict: 'unavailable' });
    expect(bbc.fix).toBe(
      'BBC iPlayer is offered in GB: connect to a region there: netcli connect --region uk',
    );

    routes.set('bili', (_q, s) => s.end('{"code":-10403,"message":"抱歉您所在地区不可观看！"}'));
    const bili = await streamTest({ bilibili: at('bilibili', 'bili') }, 'bilibili');
    expect(bili.verdict).toBe('unavailable');
    expect(bili.fix).toMatch(/leaves directly, not through the tunnel/);
  });

  it('reads a fixed country and a body pattern from the shipped entries', async () => {
    routes.set('bbc-ok', (_q, s) => s.end('JS_callbacks0({"media":[{"kind":"video"}]});'));
    const bbc = await streamTest({ 'bbc-iplayer': at('bbc-iplayer', 'bbc-ok') }, 'bbc', 'uk');
    expect(bbc).toMatchObject({ catalog_region: 'GB', matches: true, verdict: 'ok' });

    routes.set('yt', (_q, s) => s.end('<script>ytcfg.set({"INNERTUBE_CONTEXT_GL":"JP"})</script>'));
    const yt = await streamTest({ youtube: at('youtube', 'yt') }, 'youtube');
    expect(yt).toMatchObject({ catalog_region: 'JP', matches: true, verdict: 'ok' });

    routes.set('pv', (_q, s) => s.end('<html>no territory here</html>'));
    const pv = await streamTest({ 'prime-video': at('prime-video', 'pv') }, 'prime');
    expect(pv).toMatchObject({ reachable: true, catalog_region: null, verdict: 'ok' });
    expect(pv.detail).toMatch(/catalogue region could not be read/);
  });

  it('follows redirects itself, keeping cookies, and reads the country on the way', async () => {
    routes.set('dp', (q, s) => {
      if (q.url === '/dp/') {
        s.writeHead(302, { location: '/dp/en-gb', 'set-cookie': 'session=abc; Path=/' });
        return void s.end();
      }
      if (q.headers.cookie !== 'session=abc') return void s.writeHead(401).end();
      s.end('<html>Disney+</html>');
    });
    const def = at('disney-plus', 'dp', '/');
    const outcome = await probePlatform({
      ...def,
      region: [{ from: 'location', pattern: '/dp/[a-z]{2}-([a-z]{2})$' }],
    });
    expect(outcome).toMatchObject({
      ok: true,
      answer: { status: 200, locations: [`${base}/dp/en-gb`] },
    });
  });

  it('says unreachable for silence (in bounded time), refused connections, endless redirects and unknown answers', async () => {
    routes.set('slow', () => undefined);
    const started = Date.now();
    const slow = await streamTest({ netflix: at('netflix', 'slow') }, 'netflix', 'asia-east', {
      timeoutMs: 500,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slow).toMatchObject({ reachable: false, http_status: null, verdict: 'unreachable' });
    expect(slow.detail).toMatch(/did not answer through the tunnel within/);
    expect(slow.fix).toMatch(/netcli status/);

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const def = SHIPPED_PLATFORMS.netflix!;
    const refused = await streamTest(
      { netflix: { ...def, probe: { url: `http://127.0.0.1:${port}/` } } },
      'netflix',
    );
    expect(refused).toMatchObject({ verdict: 'unreachable' });
    expect(refused.detail).toMatch(/could not be reached/);

    routes.set('loop', (_q, s) => s.writeHead(302, { location: '/loop/again' }).end());
    const loop = await streamTest({ netflix: at('netflix', 'loop') }, 'netflix');
    expect(loop).toMatchObject({ verdict: 'unreachable' });
    expect(loop.detail).toMatch(/redirects/);

    routes.set('down', (_q, s) => s.writeHead(503).end());
    const down = await streamTest({ netflix: at('netflix', 'down') }, 'netflix');
    expect(down).toMatchObject({ reachable: false, http_status: 503, verdict: 'unreachable' });
    expect(down.detail).toMatch(/does not recognise/);
  });

  it('still judges without the regions, only without the node’s country', async () => {
    exitCountry = 'JP';
    const r = await streamTest(table(), 'netflix', 'asia-east', {
      regions: () => Promise.reject(new Error('control plane away')),
    });
    expect(r).toMatchObject({
      catalog_region: 'JP',
      node_country: null,
      matches: null,
      verdict: 'ok',
    });
  });

  it('refuses an unknown platform listing the ones there are, before anything else', async () => {
    const e = await refusal(streamTest(SHIPPED_PLATFORMS, 'myspace', null));
    expect(e.code).toBe('config-invalid');
    expect(e.errors).toEqual([
      {
        field: 'platform',
        message: 'a platform of the table',
        allowed: [
          'bbc-iplayer',
          'bilibili',
          'disney-plus',
          'hulu',
          'netflix',
          'prime-video',
          'youtube',
        ],
      },
    ]);
  });

  it('needs a tunnel', async () => {
    const e = await refusal(streamTest(SHIPPED_PLATFORMS, 'netflix', null));
    expect(e.code).toBe('not-connected');
    expect(e.message).toMatch(/connect first/);
  });
});

describe('the platforms file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-platforms-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('adds and replaces entries of the shipped table', async () => {
    const file = path.join(dir, 'platforms.json');
    const mock = {
      ...SHIPPED_PLATFORMS.netflix!,
      probe: { url: 'http://198.18.3.7:8100/title/1' },
    };
    await writeFile(file, JSON.stringify({ platforms: { netflix: mock, mockflix: mock } }));
    const table = await loadPlatformTable(file);
    expect(table.netflix!.probe.url).toBe('http://198.18.3.7:8100/title/1');
    expect(table.mockflix!.name).toBe('Netflix');
    expect(table.youtube).toBe(SHIPPED_PLATFORMS.youtube);
    expect(await loadPlatformTable()).toBe(SHIPPED_PLATFORMS);
  });

  it('refuses a file that is missing, not JSON, or not the table’s shape', async () => {
    expect((await refusal(loadPlatformTable(path.join(dir, 'none.json')))).code).toBe(
      'config-unreadable',
    );
    const notJson = path.join(dir, 'bad.json');
    await writeFile(notJson, '{');
    expect((await refusal(loadPlatformTable(notJson))).code).toBe('config-invalid');
    const wrong = path.join(dir, 'wrong.json');
    await writeFile(wrong, JSON.stringify({ platforms: { mockflix: { name: 'X' } } }));
    const e = await refusal(loadPlatformTable(wrong));
    expect(e.code).toBe('config-invalid');
    expect(e.errors?.map((x) => x.field)).toContain('platforms.mockflix.countries');
  });
});

describe('the engine’s stream-test', () => {
  let h: Harness;
  let dir: string;
  let engine: Engine;
  beforeAll(async () => {
    h = await startControlPlane('sqlite');
    await h.addHealthyNode('asia-east');
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-engine-stream-'));
    engine = new Engine({
      stateDir: path.join(dir, 'state'),
      fetch: injectFetch(h.plane.app),
      tunnels: new FakeTunnelManager(),
      ferryKeys: new FakeDataPlane(),
      isThisMachine: async () => false,
      platforms: { ...SHIPPED_PLATFORMS, netflix: at('netflix', 'title', '/81280792') },
      os: createFakeOs(),
      lookupHost: async () => ['192.0.2.80'],
    });
    await engine.start();
    await engine.init({ endpoint: 'https://control-plane.test/api/v1' });
    await engine.createAccount({});
  });
  afterAll(async () => {
    await engine?.shutdown();
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('needs a connection, and names the platforms when asked for one it lacks', async () => {
    expect((await refusal(engine.streamTest({ platform: 'netflix' }))).code).toBe('not-connected');
    const unknown = await refusal(engine.streamTest({ platform: 'myspace' }));
    expect(unknown.code).toBe('config-invalid');
    expect(unknown.errors?.[0]?.allowed).toContain('netflix');
  });

  it('compares the catalogue with the country of the connected node’s region', async () => {
    await engine.connect({ region: 'asia-east' });
    exitCountry = 'JP';
    expect(await engine.streamTest({ platform: 'netflix' })).toMatchObject({
      node_region: 'asia-east',
      node_country: 'JP',
      catalog_region: 'JP',
      matches: true,
      verdict: 'ok',
    });
    exitCountry = 'proxy';
    expect(await engine.streamTest({ platform: 'NETFLIX' })).toMatchObject({
      verdict: 'proxy-detected',
    });
  });
});
