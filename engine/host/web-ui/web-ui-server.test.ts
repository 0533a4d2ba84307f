// The web graphical mode's listener against the engine fake: the one-time link and its cookie,
// and the refusals that keep other web pages out (no session, a foreign Host or Origin, a change
// without Origin, a cross-site fetch), a CSP on every answer, only the faces' routes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../engine.fake.js';
import { RENDERER_CSP as CONTENT_SECURITY_POLICY } from '../../../contracts/index.js';
import { createWebUi, type WebUi } from './web-ui-server.js';
import { TOKEN_LIFETIME_MS, WebSessions, cookieValue } from './web-sessions.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  url: URL,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: url.host, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          // An event stream does not end: its first event is enough.
          if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n'))
            res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('the web graphical mode', () => {
  let dir: string;
  let engine: FakeEngine;
  let ui: WebUi;
  let link: URL;
  let cookie: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-webui-'));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><script src="app.js"></script>');
    await writeFile(path.join(dir, 'app.js'), 'console.log("ferry")');
    engine = new FakeEngine();
    ui = createWebUi({ engine, rendererDir: dir, heartbeatMs: 50 });
    link = new URL((await ui.open()).url);
    const signIn = await call(link, link.pathname);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/');
    const setCookie = String(signIn.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    cookie = setCookie.split(';')[0]!;
  });
  afterEach(async () => {
    await ui.close();
    await rm(dir, { recursive: true, force: true });
  });

  const own = () => ({ cookie, origin: `http://${link.host}` });

  it('serves a one-time link on 127.0.0.1 that signs a browser in once', async () => {
    expect(link.protocol).toBe('http:');
    expect(link.hostname).toBe('127.0.0.1');
    expect(link.pathname).toMatch(/^\/session\/[A-Za-z0-9_-]{43}$/);
    const again = await call(link, link.pathname);
    expect(again.status).toBe(401);
    expect(again.body).toMatch(/netcli gui/);
    expect(again.headers['set-cookie']).toBeUndefined();
    // Each link is its own: a second one works, on the same port.
    const second = new URL((await ui.open()).url);
    expect(second.port).toBe(link.port);
    expect(second.pathname).not.toBe(link.pathname);
    expect((await call(second, second.pathname)).status).toBe(303);
  });

  it('serves the app and the API with the session, under a CSP that allows only its origin', async () => {
    const page = await call(link, '/', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('app.js');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await call(link, '/app.js', { headers: { cookie } });
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    const status = await call(link, '/api/v1/status', { headers: { cookie } });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ status: 'disconnected' });
    expect(status.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const events = await call(link, '/api/v1/events', { headers: { cookie } });
    expect(events.body).toMatch(/^event: status\n/);
    expect(events.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('changes the engine for its own page: a PATCH with its Origin', async () => {
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
      '/session/../api/v1/status',
      '/session/x/y',
    ]) {
      const answer = await call(link, p);
      expect(answer.status, p).toBe(401);
      expect(JSON.parse(answer.body).code, p).toBe('unauthorized');
    }
    const forged = await call(link, '/api/v1/status', {
      headers: { cookie: 'ferry_session=' + 'A'.repeat(43) },
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin or site, session or not', async () => {
    const cases: Record<string, string>[] = [
      { host: `rebind.example:${link.port}` },
      { host: `127.0.0.1:${Number(link.port) + 1}` },
      { origin: 'http://evil.example' },
      { origin: `http://127.0.0.1:${Number(link.port) + 1}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of cases) {
      const answer = await call(link, '/api/v1/status', { headers: { cookie, ...headers } });
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
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ kill_switch: false }),
    });
    expect(answer.status).toBe(403);
    expect(engine.config.kill_switch).toBe(true);
  });

  it('offers the faces’ routes only: no second link from the page', async () => {
    const answer = await call(link, '/api/v1/gui', { method: 'POST', headers: own() });
    expect(answer.status).toBe(404);
  });

  it('says so when the app is not built, and serves it once it is', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'ferry-webui-empty-'));
    const none = createWebUi({ engine, rendererDir: empty });
    try {
      await expect(none.open()).rejects.toMatchObject({ code: 'not-supported' });
      await writeFile(path.join(empty, 'index.html'), '<!doctype html>');
      expect((await none.open()).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/session\//);
    } finally {
      await none.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('web sessions', () => {
  it('spends a token once and lets it expire after a minute', () => {
    let now = 0;
    const sessions = new WebSessions(() => now);
    const a = sessions.issueToken();
    const b = sessions.issueToken();
    const session = sessions.redeem(a);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.redeem(a)).toBeUndefined();
    now += TOKEN_LIFETIME_MS;
    expect(sessions.redeem(b)).toBeUndefined();
    expect(sessions.admits(`x=1; ferry_session=${session}`)).toBe(true);
    expect(sessions.admits(`ferry_session=${session}x`)).toBe(false);
    expect(sessions.admits(undefined)).toBe(false);
  });

  it('reads one cookie out of a header', () => {
    expect(cookieValue('a=1; ferry_session=xyz; b=2', 'ferry_session')).toBe('xyz');
    expect(cookieValue('ferry_sessionx=1', 'ferry_session')).toBeUndefined();
  });
});
