// The web graphical mode's listener against the engine fake: its own loopback address, the
// one-time link and the sign-in page's form, a session made of a cookie and a page key (neither
// opens the API alone), the refusals that keep other web pages out (no session, a foreign Host
// or Origin, a change without Origin, a cross-site fetch), a CSP on every answer, only the faces'
// routes; the browsers signed in, listed and ended, and sessions that expire.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../engine.fake.js';
import {
  FACE_ROUTE_IDS,
  RENDERER_CSP as CONTENT_SECURITY_POLICY,
  localRoutes,
  type RouteDef,
} from '../../../contracts/index.js';
import { browserSessionRoutes } from '../../../contracts/browser-sessions.js';
import { createWebUi, type WebUi } from './web-ui-server.js';
import {
  SESSION_IDLE_MS,
  SESSION_LIFETIME_MS,
  TOKEN_LIFETIME_MS,
  WebSessions,
  cookieValue,
} from './web-sessions.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

function send(
  url: URL,
  path: string,
  opts: CallOptions,
  onResponse: (res: IncomingMessage) => void,
) {
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path,
      method: opts.method ?? 'GET',
      headers: {
        host: url.host,
        // Node frames a DELETE's body only with a length.
        ...(opts.body === undefined
          ? {}
          : { 'content-length': String(Buffer.byteLength(opts.body)) }),
        ...opts.headers,
      },
    },
    onResponse,
  );
  req.end(opts.body);
  return req;
}

function call(url: URL, path: string, opts: CallOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    send(url, path, opts, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        // An event stream does not end: its first event is enough.
        if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n'))
          res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

/** An event stream kept open: its status, and when it ends (the host ended it or cut it). */
function openStream(
  url: URL,
  headers: Record<string, string>,
): Promise<{ status: number; ended: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = send(url, '/api/v1/events', { headers }, (res) => {
      const ended = new Promise<void>((done) => {
        res.on('close', done);
        res.on('error', () => done());
      });
      res.resume();
      resolve({ status: res.statusCode!, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

interface Browser {
  cookie: string;
  pageKey: string;
}

/** Redeems a one-time link the way a browser given it does: its cookie and page key. */
async function signIn(link: URL): Promise<Browser> {
  const answer = await call(link, link.pathname);
  expect(answer.status).toBe(303);
  const pageKey = /^\/#page=([A-Za-z0-9_-]{43})$/.exec(String(answer.headers.location))?.[1];
  expect(pageKey).toBeDefined();
  const setCookie = String(answer.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  return { cookie: setCookie.split(';')[0]!, pageKey: pageKey! };
}

/** A route's path with every parameter filled in. */
function pathOf(def: RouteDef): string {
  return '/api/v1' + def.path.replace(/:[A-Za-z_]+/g, 'x');
}

describe('the web graphical mode', () => {
  let dir: string;
  let engine: FakeEngine;
  let ui: WebUi;
  let link: URL;
  let browser: Browser;
  let now: number;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-webui-'));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><script src="app.js"></script>');
    await writeFile(path.join(dir, 'app.js'), 'console.log("ferry")');
    engine = new FakeEngine();
    now = Date.parse('2026-03-01T08:00:00Z');
    ui = createWebUi({ engine, rendererDir: dir, heartbeatMs: 50, now: () => now, sweepMs: 20 });
    link = new URL((await ui.open()).url);
    browser = await signIn(link);
  });
  afterEach(async () => {
    await ui.close();
    await rm(dir, { recursive: true, force: true });
  });

  const page = (b: Browser = browser) => ({ cookie: b.cookie, 'x-ferry-page': b.pageKey });
  const own = (b: Browser = browser) => ({ ...page(b), origin: `http://${link.host}` });
  const newBrowser = async () => signIn(new URL((await ui.open()).url));

  it('listens on an address of its own, a random 127.x.y.z, and answers to that Host only', async () => {
    expect(link.protocol).toBe('http:');
    expect(link.hostname).toMatch(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    expect(link.hostname).not.toBe('127.0.0.1');
    const other = createWebUi({ engine, rendererDir: dir });
    try {
      const second = new URL((await other.open()).url);
      expect(second.hostname).toMatch(/^127\./);
      expect(second.hostname).not.toBe(link.hostname);
    } finally {
      await other.close();
    }
    // The names every other local listener shares are not this one's.
    for (const host of [`127.0.0.1:${link.port}`, `localhost:${link.port}`]) {
      const answer = await call(link, '/api/v1/status', { headers: { ...page(), host } });
      expect(answer.status, host).toBe(403);
    }
  });

  it('a one-time link signs a browser in once: a cookie, and the page key in the fragment', async () => {
    expect(link.pathname).toMatch(/^\/session\/[A-Za-z0-9_-]{43}$/);
    const again = await call(link, link.pathname);
    expect(again.status).toBe(401);
    expect(again.body).toMatch(/netcli gui/);
    expect(again.headers['set-cookie']).toBeUndefined();
    // Each link is its own: a second one works, on the same address, with a key of its own.
    const second = new URL((await ui.open()).url);
    expect(second.host).toBe(link.host);
    expect(second.pathname).not.toBe(link.pathname);
    const other = await signIn(second);
    expect(other.pageKey).not.toBe(browser.pageKey);
    expect(other.cookie).not.toBe(browser.cookie);
  });

  it('the sign-in page netcli opens: its form, posted from a file (Origin null), signs in once', async () => {
    const token = new URL((await ui.open()).url).pathname.split('/').pop()!;
    const form = (headers: Record<string, string>, body = `token=${token}`) =>
      call(link, '/session', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    // Another site cannot use a token either.
    expect((await form({ origin: 'http://evil.example' })).status).toBe(403);
    const signedIn = await form({ origin: 'null', 'sec-fetch-site': 'cross-site' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
    expect(String(signedIn.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    // The browser goes on to the app from the page itself (the cookie is SameSite=Strict: a
    // redirect of a cross-site post would arrive without it).
    const refresh = /<meta http-equiv="refresh" content="0;url=\/#page=([A-Za-z0-9_-]{43})">/.exec(
      signedIn.body,
    );
    expect(refresh).not.toBeNull();
    const status = await call(link, '/api/v1/status', {
      headers: { cookie, 'x-ferry-page': refresh![1]! },
    });
    expect(status.status).toBe(200);
    expect((await form({ origin: 'null' })).status).toBe(401);
    expect((await form({ origin: 'null' }, 'token=')).status).toBe(401);
    expect((await form({ origin: 'null' }, 'nothing=1')).status).toBe(401);
    const json = await call(link, '/session', {
      method: 'POST',
      headers: { origin: 'null', 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(json.status).toBe(415);
    // Origin null is taken there only: nowhere else.
    const elsewhere = await call(link, '/api/v1/disconnect', {
      method: 'POST',
      headers: { ...page(), origin: 'null' },
    });
    expect(elsewhere.status).toBe(403);
  });

  it('serves the app and the API with the session, under a CSP that allows only its origin', async () => {
    const index = await call(link, '/', { headers: { cookie: browser.cookie } });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.body).toContain('app.js');
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(index.headers['x-frame-options']).toBe('DENY');
    const script = await call(link, '/app.js', { headers: { cookie: browser.cookie } });
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    const status = await call(link, '/api/v1/status', { headers: page() });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ status: 'disconnected' });
    expect(status.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const events = await call(link, '/api/v1/events', { headers: page() });
    expect(events.body).toMatch(/^event: status\n/);
    expect(events.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('the cookie alone does not open the API: every route wants the page key of its session', async () => {
    const other = await newBrowser();
    const routes: RouteDef[] = [
      ...FACE_ROUTE_IDS.map((id) => localRoutes[id]),
      localRoutes.events,
      ...Object.values(browserSessionRoutes),
    ];
    const keys: [string, Record<string, string>][] = [
      ['no key', {}],
      ['a wrong key', { 'x-ferry-page': 'A'.repeat(43) }],
      ['another browser’s key', { 'x-ferry-page': other.pageKey }],
      ['an empty key', { 'x-ferry-page': '' }],
    ];
    for (const def of routes) {
      for (const [what, key] of keys) {
        const answer = await call(link, pathOf(def), {
          method: def.method,
          headers: {
            cookie: browser.cookie,
            origin: `http://${link.host}`,
            'content-type': 'application/json',
            ...key,
          },
          body: def.method === 'GET' ? undefined : '{}',
        });
        expect(answer.status, `${def.method} ${def.path} with ${what}: ${answer.body}`).toBe(401);
        expect(JSON.parse(answer.body).code).toBe('unauthorized');
      }
    }
    expect(engine.config.kill_switch).toBe(true);
    expect(engine.status().status).toBe('disconnected');
    // The page's files hold nothing of the user's: the cookie is enough for them.
    expect((await call(link, '/', { headers: { cookie: browser.cookie } })).status).toBe(200);
  });

  it('changes the engine for its own page: a PATCH with its Origin and key', async () => {
    const patched = await call(link, '/api/v1/config', {
      method: 'PATCH',
      headers: { ...own(), 'content-type': 'application/json' },
      body: JSON.stringify({ kill_switch: false }),
    });
    expect(patched.status).toBe(200);
    expect(engine.config.kill_switch).toBe(false);
  });

  it('refuses every request without the session: the page, the API, the event stream', async () => {
    for (const p of [
      '/',
      '/app.js',
      '/api/v1/status',
      '/api/v1/events',
      '/nothing',
      '/session',
      '/session/../api/v1/status',
      '/session/x/y',
    ]) {
      const answer = await call(link, p);
      expect(answer.status, p).toBe(401);
      expect(JSON.parse(answer.body).code, p).toBe('unauthorized');
    }
    // The key without the cookie is nothing either.
    const keyOnly = await call(link, '/api/v1/status', {
      headers: { 'x-ferry-page': browser.pageKey },
    });
    expect(keyOnly.status).toBe(401);
    const forged = await call(link, '/api/v1/status', {
      headers: { cookie: 'ferry_session=' + 'A'.repeat(43), 'x-ferry-page': browser.pageKey },
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin or site, session or not', async () => {
    const cases: Record<string, string>[] = [
      { host: `rebind.example:${link.port}` },
      { host: `${link.hostname}:${Number(link.port) + 1}` },
      { origin: 'http://evil.example' },
      { origin: `http://${link.hostname}:${Number(link.port) + 1}` },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of cases) {
      const answer = await call(link, '/api/v1/status', { headers: { ...page(), ...headers } });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(answer.body).code).toBe('forbidden');
    }
    // A one-time link is not redeemed for a foreign Host either (and stays unspent).
    const fresh = new URL((await ui.open()).url);
    const rebound = await call(fresh, fresh.pathname, {
      headers: { host: `rebind.example:${fresh.port}` },
    });
    expect(rebound.status).toBe(403);
    expect((await call(fresh, fresh.pathname)).status).toBe(303);
  });

  it('refuses a change without Origin (CSRF), and leaves the engine as it was', async () => {
    const answer = await call(link, '/api/v1/config', {
      method: 'PATCH',
      headers: { ...page(), 'content-type': 'application/json' },
      body: JSON.stringify({ kill_switch: false }),
    });
    expect(answer.status).toBe(403);
    expect(engine.config.kill_switch).toBe(true);
  });

  it('offers the faces’ routes only: no second link from the page', async () => {
    const answer = await call(link, '/api/v1/gui', { method: 'POST', headers: own() });
    expect(answer.status).toBe(404);
  });

  it('lists the browsers signed in, and ends one: its open page is cut off, then refused', async () => {
    const other = await newBrowser();
    now += 60_000;
    const listed = await call(link, '/api/v1/gui/sessions', { headers: page() });
    expect(listed.status).toBe(200);
    const { sessions } = JSON.parse(listed.body) as {
      sessions: {
        id: string;
        created_at: string;
        last_seen_at: string;
        expires_at: string;
        current: boolean;
      }[];
    };
    expect(sessions).toHaveLength(2);
    const mine = sessions.find((s) => s.current)!;
    const theirs = sessions.find((s) => !s.current)!;
    expect(mine.created_at).toBe('2026-03-01T08:00:00.000Z');
    expect(mine.last_seen_at).toBe('2026-03-01T08:01:00.000Z');
    expect(mine.expires_at).toBe('2026-03-01T20:00:00.000Z');
    // Nothing secret in the list: no cookie, no key.
    expect(listed.body).not.toContain(other.cookie.split('=')[1]);
    expect(listed.body).not.toContain(other.pageKey);

    const stream = await openStream(link, page(other));
    expect(stream.status).toBe(200);
    const ended = await call(link, `/api/v1/gui/sessions/${theirs.id}`, {
      method: 'DELETE',
      headers: own(),
    });
    expect(ended.status).toBe(204);
    await stream.ended;
    expect((await call(link, '/api/v1/status', { headers: page(other) })).status).toBe(401);
    const after = JSON.parse((await call(link, '/api/v1/gui/sessions', { headers: page() })).body);
    expect(after.sessions.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    const unknown = await call(link, `/api/v1/gui/sessions/${theirs.id}`, {
      method: 'DELETE',
      headers: own(),
    });
    expect(unknown.status).toBe(404);
    // A change needs the page's Origin here too.
    const csrf = await call(link, `/api/v1/gui/sessions/${mine.id}`, {
      method: 'DELETE',
      headers: page(),
    });
    expect(csrf.status).toBe(403);

    // Signing this browser out: answered, then refused.
    const out = await call(link, `/api/v1/gui/sessions/${mine.id}`, {
      method: 'DELETE',
      headers: own(),
    });
    expect(out.status).toBe(204);
    expect((await call(link, '/api/v1/status', { headers: page() })).status).toBe(401);
    expect((await call(link, '/', { headers: { cookie: browser.cookie } })).status).toBe(401);
  });

  it('a session unused for its idle time ends; a page that is open keeps it until its lifetime', async () => {
    const open = await newBrowser();
    const stream = await openStream(link, page(open));
    // Used just in time: still signed in, and the idle time starts again.
    now += SESSION_IDLE_MS - 1_000;
    expect((await call(link, '/api/v1/status', { headers: page() })).status).toBe(200);
    now += SESSION_IDLE_MS - 1_000;
    expect((await call(link, '/api/v1/status', { headers: page() })).status).toBe(200);
    now += SESSION_IDLE_MS;
    expect((await call(link, '/api/v1/status', { headers: page() })).status).toBe(401);
    expect((await call(link, '/', { headers: { cookie: browser.cookie } })).status).toBe(401);

    // The open page (its event stream) has not called since it signed in, and is still in.
    expect((await call(link, '/api/v1/status', { headers: page(open) })).status).toBe(200);
    // At its lifetime it ends, open or not: its stream is cut and its calls refused.
    now = Date.parse('2026-03-01T08:00:00Z') + SESSION_LIFETIME_MS;
    await stream.ended;
    expect((await call(link, '/api/v1/status', { headers: page(open) })).status).toBe(401);
  });

  it('says so when the app is not built, and serves it once it is', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'ferry-webui-empty-'));
    const none = createWebUi({ engine, rendererDir: empty });
    try {
      await expect(none.open()).rejects.toMatchObject({ code: 'not-supported' });
      await writeFile(path.join(empty, 'index.html'), '<!doctype html>');
      expect((await none.open()).url).toMatch(/^http:\/\/127\.\d+\.\d+\.\d+:\d+\/session\//);
    } finally {
      await none.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('web sessions', () => {
  it('spends a token once and lets it expire after a minute', () => {
    let now = 0;
    const sessions = new WebSessions({ now: () => now });
    const a = sessions.issueToken();
    const b = sessions.issueToken();
    const session = sessions.redeem(a);
    expect(session?.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session?.pageKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.redeem(a)).toBeUndefined();
    now += TOKEN_LIFETIME_MS;
    expect(sessions.redeem(b)).toBeUndefined();
    expect(sessions.byCookie(`x=1; ferry_session=${session!.cookie}`)).toBeDefined();
    expect(sessions.byCookie(`ferry_session=${session!.cookie}x`)).toBeUndefined();
    expect(sessions.byCookie(undefined)).toBeUndefined();
  });

  it('reads one cookie out of a header', () => {
    expect(cookieValue('a=1; ferry_session=xyz; b=2', 'ferry_session')).toBe('xyz');
    expect(cookieValue('ferry_sessionx=1', 'ferry_session')).toBeUndefined();
  });
});
