// The shared platform probe over a fake transport: redirects followed by hand with cookies kept
// per host, the body capped, the whole exchange bounded even when the transport never answers,
// cancellation; then what an answer means for a node, and reading a --platforms-file.
import { describe, expect, it } from 'vitest';
import {
  PROBE_MAX_BODY_BYTES,
  PROBE_USER_AGENT,
  probePlatform,
  verifyPlatform,
  type ProbeFetch,
} from './platform-probe.js';
import {
  SHIPPED_PLATFORMS,
  readPlatformsFile,
  type PlatformDef,
} from '../../contracts/platforms.js';

type Handler = (url: URL, headers: Record<string, string>) => Response | Promise<Response>;

/** A fake transport: each URL's path answered by its handler, every request recorded. */
function fakeFetch(routes: Record<string, Handler>) {
  const asked: { url: string; headers: Record<string, string> }[] = [];
  const fetch: ProbeFetch = async (url, init) => {
    expect(init.redirect).toBe('manual');
    asked.push({ url, headers: init.headers });
    const u = new URL(url);
    const handler = routes[u.host + u.pathname];
    if (!handler) throw new TypeError('fetch failed');
    return handler(u, init.headers);
  };
  return { fetch, asked };
}

const netflix = SHIPPED_PLATFORMS.netflix!;
const at = (url: string): PlatformDef => ({ ...netflix, probe: { ...netflix.probe, url } });

describe('probePlatform', () => {
  it('follows redirects itself, keeping cookies per host, and reads the answer', async () => {
    const { fetch, asked } = fakeFetch({
      'p.test/title/1': () =>
        new Response(null, {
          status: 302,
          headers: [
            ['location', '/jp-en/title/1'],
            ['set-cookie', 'nfvdid=abc; Path=/; HttpOnly'],
          ],
        }),
      'p.test/jp-en/title/1': (_u, h) =>
        h.cookie === 'nfvdid=abc'
          ? new Response('<html>title</html>', { headers: { 'X-Served-By': 'edge' } })
          : new Response('', { status: 401 }),
    });
    const outcome = await probePlatform(at('http://p.test/title/1'), { fetch });
    expect(outcome).toEqual({
      ok: true,
      answer: {
        status: 200,
        headers: expect.objectContaining({ 'x-served-by': 'edge' }),
        locations: ['http://p.test/jp-en/title/1'],
        body: '<html>title</html>',
      },
    });
    expect(asked[0]!.headers['user-agent']).toBe(PROBE_USER_AGENT);
    expect(asked[0]!.headers['accept-language']).toBe('en-US,en;q=0.8');
    expect(verifyPlatform(netflix, outcome)).toEqual({
      reachable: true,
      region: 'JP',
      verdict: 'ok',
    });
  });

  it('gives up after five redirects, and says network for a failed connection', async () => {
    const { fetch } = fakeFetch({
      'p.test/loop': () => new Response(null, { status: 302, headers: { location: '/loop' } }),
    });
    expect(await probePlatform(at('http://p.test/loop'), { fetch })).toEqual({
      ok: false,
      reason: 'too-many-redirects',
    });
    expect(await probePlatform(at('http://elsewhere.test/'), { fetch })).toEqual({
      ok: false,
      reason: 'network',
    });
  });

  it('reads at most the cap of a body', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const { fetch } = fakeFetch({ 'p.test/big': () => new Response(endless) });
    const outcome = await probePlatform(at('http://p.test/big'), { fetch });
    expect(outcome.ok && outcome.answer.body.length).toBe(PROBE_MAX_BODY_BYTES);
    expect(sent).toBeLessThan(PROBE_MAX_BODY_BYTES + 4 * chunk.length);
  });

  it('is over in bounded time even when the transport never answers or ignores the abort', async () => {
    const never: ProbeFetch = () => new Promise<Response>(() => undefined);
    const started = Date.now();
    expect(await probePlatform(at('http://p.test/'), { fetch: never, timeoutMs: 100 })).toEqual({
      ok: false,
      reason: 'timeout',
    });
    // A body that trickles forever is cut at the deadline too.
    const trickle = new ReadableStream<Uint8Array>({
      pull: () => new Promise<void>(() => undefined),
    });
    const { fetch } = fakeFetch({ 'p.test/slow': () => new Response(trickle) });
    expect(await probePlatform(at('http://p.test/slow'), { fetch, timeoutMs: 100 })).toEqual({
      ok: false,
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('throws when its caller cancels, with the caller’s reason', async () => {
    const never: ProbeFetch = () => new Promise<Response>(() => undefined);
    const caller = new AbortController();
    const probe = probePlatform(at('http://p.test/'), { fetch: never, signal: caller.signal });
    caller.abort(new Error('disconnecting'));
    await expect(probe).rejects.toThrow('disconnecting');
  });
});

describe('verifyPlatform', () => {
  const answer = (status: number, body = '', locations: string[] = []) => ({
    ok: true as const,
    answer: { status, headers: {}, locations, body },
  });

  it('reads a served answer, a proxy verdict, "not offered" and the unrecognised', () => {
    expect(verifyPlatform(netflix, answer(200, '<html>US</html>'))).toEqual({
      reachable: true,
      region: 'US',
      verdict: 'ok',
    });
    expect(verifyPlatform(netflix, answer(404))).toEqual({
      reachable: true,
      region: null,
      verdict: 'proxy-detected',
    });
    expect(verifyPlatform(netflix, answer(403))).toEqual({
      reachable: true,
      region: null,
      verdict: 'unavailable',
    });
    expect(verifyPlatform(netflix, answer(503))).toEqual({
      reachable: false,
      region: null,
      verdict: 'unreachable',
    });
    expect(verifyPlatform(netflix, { ok: false, reason: 'timeout' })).toEqual({
      reachable: false,
      region: null,
      verdict: 'unreachable',
    });
  });
});

describe('readPlatformsFile', () => {
  it('adds and replaces whole entries of the shipped table', () => {
    const read = readPlatformsFile(
      JSON.stringify({
        platforms: {
          netflix: { ...netflix, probe: { url: 'http://198.18.0.9:8100/title/1' } },
          acme: { ...netflix, name: 'Acme' },
        },
      }),
    );
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.table.netflix!.probe.url).toBe('http://198.18.0.9:8100/title/1');
    expect(read.table.acme!.name).toBe('Acme');
    expect(read.table.youtube).toEqual(SHIPPED_PLATFORMS.youtube);
  });

  it('says why a file is not a platform table', () => {
    expect(readPlatformsFile('{')).toMatchObject({ ok: false, message: /not JSON/ });
    const wrong = readPlatformsFile(JSON.stringify({ platforms: { Bad: { name: 'x' } } }));
    expect(wrong.ok).toBe(false);
    if (wrong.ok) return;
    expect(wrong.message).toMatch(/not a platform table/);
    expect(wrong.errors.map((e) => e.field)).toEqual(expect.arrayContaining(['platforms.Bad']));
  });
});
