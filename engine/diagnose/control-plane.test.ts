// The control-plane and clock checks against a scripted transport: each verdict, the clock's
// thresholds from the Date of the health answer, what the control plane publishes.
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../contracts/index.js';
import { checkControlPlane, clockCheck } from './control-plane.js';

const NOW = Date.parse('2026-05-04T10:00:00.000Z');
const SERVICE = 'https://ferry.example:8443/api/v1';
const signal = new AbortController().signal;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A control plane whose clock is `skewMs` behind this host's (the Date header it sends). */
function controlPlane(
  opts: { skewMs?: number; date?: boolean; diagnostics?: unknown; health?: () => Response } = {},
): { fetch: FetchLike; asked: string[] } {
  const asked: string[] = [];
  const fetch: FetchLike = async (url) => {
    const path = new URL(url).pathname;
    asked.push(path);
    if (path.endsWith('/health')) {
      if (opts.health) return opts.health();
      const date = new Date(NOW - (opts.skewMs ?? 0)).toUTCString();
      return json(
        200,
        { status: 'ok', version: '0.1.0', api: 'v1' },
        opts.date === false ? {} : { date },
      );
    }
    if (path.endsWith('/diagnostics'))
      return opts.diagnostics === undefined
        ? json(404, {
            type: 'about:blank',
            title: 'Not Found',
            status: 404,
            detail: 'no route',
            code: 'not-found',
          })
        : json(200, opts.diagnostics);
    throw new Error(`unexpected ${path}`);
  };
  return { fetch, asked };
}

const run = (fetch: FetchLike, service: string | null = SERVICE) =>
  checkControlPlane({ service, fetch, now: () => NOW, timeoutMs: 200 }, signal);

describe('the control-plane check', () => {
  it('is ok when /health answers, naming the host and version', async () => {
    const { fetch, asked } = controlPlane();
    const r = await run(fetch);
    expect(r.controlPlane).toEqual({
      id: 'control-plane',
      title: 'Control plane',
      verdict: 'ok',
      summary: 'ferry.example:8443 answers in 0 ms (version 0.1.0)',
      fix: null,
      finding: 'answers',
      params: { host: 'ferry.example:8443', ms: 0, version: '0.1.0' },
    });
    expect(asked).toContain('/api/v1/health');
    expect(r.published).toBeNull();
  });

  it('is a problem when it answers over plain HTTP across a network, and says why', async () => {
    const r = await run(controlPlane().fetch, 'http://ferry.example:8080');
    expect(r.controlPlane).toMatchObject({
      verdict: 'problem',
      summary: expect.stringMatching(
        /answers in 0 ms \(version 0\.1\.0\), over plain HTTP: anyone/,
      ),
      fix: expect.stringMatching(/^use the service’s https URL/),
    });
    // On this machine plain HTTP crosses no network.
    const local = await run(controlPlane().fetch, 'http://127.0.0.1:8080');
    expect(local.controlPlane.verdict).toBe('ok');
  });

  it('is a problem with a fix when its certificate does not verify', async () => {
    const untrusted: FetchLike = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'SELF_SIGNED_CERT_IN_CHAIN' } });
    };
    expect((await run(untrusted)).controlPlane).toMatchObject({
      verdict: 'problem',
      summary:
        "ferry.example:8443 did not prove who it is: the server's TLS certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN)",
      fix: expect.stringMatching(/--ca-file/),
    });
  });

  it('is a problem with what to do when no control plane is configured', async () => {
    const r = await run(controlPlane().fetch, null);
    expect(r.controlPlane).toMatchObject({
      verdict: 'problem',
      fix: 'netcli init --endpoint <url>',
    });
    expect(r.clock).toMatchObject({ verdict: 'skipped' });
  });

  it('is a problem when it does not answer, in time or at all, or answers as no control plane does', async () => {
    const refused: FetchLike = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    const down = await run(refused);
    expect(down.controlPlane).toMatchObject({
      verdict: 'problem',
      summary: 'ferry.example:8443 did not answer (no answer from the server (ECONNREFUSED))',
      fix: "check this host's network and the service URL (netcli config get service)",
    });
    expect(down.clock).toMatchObject({ verdict: 'skipped' });

    const slow: FetchLike = (_url, init) =>
      new Promise((_, reject) =>
        init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    expect((await run(slow)).controlPlane).toMatchObject({
      verdict: 'problem',
      summary: 'ferry.example:8443 did not answer within 0 s',
    });

    const failing = controlPlane({
      health: () =>
        json(503, {
          type: 'about:blank',
          title: 'x',
          status: 503,
          detail: 'down',
          code: 'unavailable',
        }),
    });
    expect((await run(failing.fetch)).controlPlane).toMatchObject({
      verdict: 'problem',
      summary: 'ferry.example:8443 answered HTTP 503 (unavailable)',
      fix: 'the service has trouble: try again in a minute',
    });

    const other = controlPlane({ health: () => new Response('<html>hi</html>', { status: 200 }) });
    expect((await run(other.fetch)).controlPlane).toMatchObject({
      verdict: 'problem',
      fix: 'check the service URL: netcli config get service',
    });
  });

  it('reads what the control plane publishes for the leak checks', async () => {
    const published = { dns_leak_zone: 'whoami.ferry-test', ipv6_probe: '[fd00::53]:443' };
    expect((await run(controlPlane({ diagnostics: published }).fetch)).published).toEqual(
      published,
    );
  });
});

describe('the clock check', () => {
  it('is ok within a second, and says how far off beyond', async () => {
    expect((await run(controlPlane({ skewMs: 0 }).fetch)).clock).toMatchObject({
      verdict: 'ok',
      summary: "within a second of the control plane's clock",
    });
    expect((await run(controlPlane({ skewMs: 5_000 }).fetch)).clock).toMatchObject({
      verdict: 'ok',
      summary: "this host's clock is 5 s ahead of the control plane's: close enough",
    });
  });

  it('warns from 10 s and is a problem from 60 s, either way, with the time-sync fix', async () => {
    const ahead = (await run(controlPlane({ skewMs: 15_000 }).fetch)).clock;
    expect(ahead).toMatchObject({
      verdict: 'warning',
      summary:
        "this host's clock is 15 s ahead of the control plane's: getting close to where tunnel handshakes fail",
      fix: 'turn on time sync: timedatectl set-ntp true',
    });
    // The Date counts whole seconds: 89.7 s behind reads as 89 s, taken as 89.5.
    const behind = (await run(controlPlane({ skewMs: -89_700 }).fetch)).clock;
    expect(behind).toMatchObject({
      verdict: 'problem',
      fix: 'turn on time sync: timedatectl set-ntp true',
    });
    expect(behind.summary).toMatch(
      /^this host's clock is 90 s behind the control plane's: tunnel handshakes fail/,
    );
  });

  it('counts the Date header’s whole second: the boundaries', () => {
    expect(clockCheck(9_400).verdict).toBe('ok');
    expect(clockCheck(9_600).verdict).toBe('warning');
    expect(clockCheck(-59_400).verdict).toBe('warning');
    expect(clockCheck(-59_600).verdict).toBe('problem');
  });

  it('is skipped when the answer carries no Date', async () => {
    expect((await run(controlPlane({ date: false }).fetch)).clock).toMatchObject({
      verdict: 'skipped',
      summary: 'the control plane sent no Date with its answer',
      fix: null,
    });
  });
});
