// HttpTransport against a fake fetch that answers as the engine host does: JSON, problem+json,
// and a real text/event-stream body fed in pieces.
import { describe, expect, it } from 'vitest';
import { idleStatus, type LocalStatus } from '../../contracts/local-api.js';
import type { FaceEvent } from '../../contracts/ipc.js';
import type { TransportState } from './engine-transport.js';
import { FaceCallError } from './face-call-error.js';
import { HttpTransport } from './http-transport.js';

const BASE = 'http://127.0.0.1:4711/api/v1';

interface Sent {
  url: string;
  method: string;
  body: string | undefined;
  signal: AbortSignal | undefined;
  /** The page key the request carried (the web mode's second secret). */
  pageKey: string | null;
}

/** A body the test writes to, piece by piece, and ends (or sees cancelled). */
function eventBody() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (cancelled = true),
  });
  return {
    response: () =>
      new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } }),
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    get cancelled() {
      return cancelled;
    },
  };
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

function problem(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title: 't', status, ...body }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });
}

function fakeFetch(answer: (s: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const s: Sent = {
      url,
      method: init.method ?? 'GET',
      body: typeof init.body === 'string' ? init.body : undefined,
      signal: init.signal ?? undefined,
      pageKey: new Headers(init.headers).get('x-ferry-page'),
    };
    sent.push(s);
    return answer(s);
  };
  return { fetch, sent };
}

const connected: LocalStatus = {
  ...idleStatus(true, true),
  status: 'connected',
  latency: '42ms',
  region: 'asia-east',
};

function statusEvent(s: LocalStatus): string {
  return `event: status\ndata: ${JSON.stringify(s)}\n\n`;
}

function until(check: () => boolean, ms = 2_000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() - start > ms) return reject(new Error('condition not met in time'));
      setTimeout(tick, 2);
    };
    tick();
  });
}

describe('HttpTransport.call', () => {
  it('asks the route of the local API and returns its checked answer', async () => {
    const { fetch, sent } = fakeFetch(() => json(connected));
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    const status = await t.call('status', {});
    expect(status.latency).toBe('42ms');
    expect(sent[0]).toMatchObject({ url: `${BASE}/status`, method: 'GET' });
  });

  it('sends a body as JSON with the route’s method and path parameters', async () => {
    const { fetch, sent } = fakeFetch((s) =>
      s.method === 'PATCH'
        ? json({ config: { kill_switch: false }, changed: ['kill_switch'], effect: 'applied' })
        : new Response(null, { status: 204 }),
    );
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    const result = await t.call('patchConfig', { body: { kill_switch: false } });
    expect(result.effect).toBe('applied');
    expect(result.config.kill_switch).toBe(false);
    expect(sent[0]).toMatchObject({ url: `${BASE}/config`, method: 'PATCH' });
    expect(JSON.parse(sent[0]!.body!)).toEqual({ kill_switch: false });

    await t.call('revokeDevice', { params: { id: 'dev_1' } });
    expect(sent[1]).toMatchObject({ url: `${BASE}/devices/dev_1`, method: 'DELETE' });
  });

  it('rejects with the engine’s code, detail and field errors', async () => {
    const errors = [{ field: 'dns', message: 'dns must be auto or an address' }];
    const { fetch } = fakeFetch(() =>
      problem(400, { code: 'config-invalid', detail: 'dns is refused', errors }),
    );
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    const e = await t.call('patchConfig', { body: { dns: 'auto' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FaceCallError);
    expect((e as FaceCallError).toFaceError()).toEqual({
      code: 'config-invalid',
      message: 'dns is refused',
      errors,
    });
  });

  it('says unreachable when no answer came at all', async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    await expect(t.call('status', {})).rejects.toMatchObject({ code: 'unreachable' });
  });

  it('says bad-response when the answer breaks the contract', async () => {
    const { fetch } = fakeFetch(() => json({ status: 'sideways' }));
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    await expect(t.call('status', {})).rejects.toMatchObject({ code: 'bad-response' });
  });
});

describe('HttpTransport.subscribe', () => {
  function recorder() {
    const log: (FaceEvent | TransportState)[] = [];
    return {
      log,
      listener: {
        event: (e: FaceEvent) => void log.push(e),
        connection: (s: TransportState) => void log.push(s),
      },
    };
  }

  it('delivers status and notice events from the stream, however it is cut', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch(() => body.response());
    const t = new HttpTransport({ baseUrl: BASE, fetch });
    const { log, listener } = recorder();
    const stop = t.subscribe(listener);

    const text =
      statusEvent(connected) +
      ': heartbeat\n\n' +
      'event: notice\ndata: {"code":"failover","message":"moved to node b"}\n\n';
    body.write(text.slice(0, 17));
    body.write(text.slice(17, 200));
    body.write(text.slice(200));
    await until(() => log.length === 3);
    expect(sent[0]).toMatchObject({ url: `${BASE}/events`, method: 'GET' });
    expect(log[0]).toBe('up');
    expect(log[1]).toMatchObject({ type: 'status', status: { status: 'connected' } });
    expect(log[2]).toEqual({
      type: 'notice',
      notice: { code: 'failover', message: 'moved to node b' },
    });
    stop();
  });

  it('reopens a stream that ended, with backoff, and says down in between', async () => {
    const bodies = [eventBody(), eventBody()];
    let n = 0;
    const { fetch, sent } = fakeFetch(() => bodies[n++]!.response());
    const delays: number[] = [];
    const t = new HttpTransport({
      baseUrl: BASE,
      fetch,
      backoff: { delayMs: (a) => (delays.push(a), 1) },
    });
    const { log, listener } = recorder();
    const stop = t.subscribe(listener);

    bodies[0]!.write(statusEvent(connected));
    await until(() => log.length === 2);
    bodies[0]!.end();
    await until(() => sent.length === 2);
    bodies[1]!.write(statusEvent({ ...connected, latency: '50ms' }));
    await until(() => log.length === 5);
    expect(log.map((x) => (typeof x === 'string' ? x : x.type))).toEqual([
      'up',
      'status',
      'down',
      'up',
      'status',
    ]);
    expect(log[4]).toMatchObject({ status: { latency: '50ms' } });
    expect(delays).toEqual([0]);
    stop();
  });

  it('backs off further on each refusal, reports down once, and starts over after events', async () => {
    let refusals = 3;
    const body = eventBody();
    const { fetch, sent } = fakeFetch(() =>
      refusals-- > 0 ? Promise.reject(new TypeError('connection refused')) : body.response(),
    );
    const delays: number[] = [];
    const t = new HttpTransport({
      baseUrl: BASE,
      fetch,
      backoff: { delayMs: (a) => (delays.push(a), 1) },
    });
    const { log, listener } = recorder();
    const stop = t.subscribe(listener);
    await until(() => sent.length === 4);
    body.write(statusEvent(connected));
    await until(() => log.length === 3);
    expect(log.slice(0, 2)).toEqual(['down', 'up']);
    expect(delays).toEqual([0, 1, 2]);
    body.end();
    await until(() => delays.length >= 4);
    expect(delays[3]).toBe(0);
    stop();
  });

  it('stops for good when unsubscribed: the stream is let go, nothing more arrives', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch(() => body.response());
    const t = new HttpTransport({ baseUrl: BASE, fetch, backoff: { delayMs: () => 1 } });
    const { log, listener } = recorder();
    const stop = t.subscribe(listener);
    body.write(statusEvent(connected));
    await until(() => log.length === 2);
    stop();
    expect(sent[0]!.signal?.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toHaveLength(2);
    expect(sent).toHaveLength(1);
  });
});

describe('HttpTransport in the web graphical mode', () => {
  const KEY = 'K'.repeat(43);
  const session = (id: string, current: boolean) => ({
    id,
    created_at: '2026-03-01T08:00:00.000Z',
    last_seen_at: '2026-03-01T08:05:00.000Z',
    expires_at: '2026-03-01T20:00:00.000Z',
    current,
  });

  it('sends the page key with every call and with the event stream', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch((s) =>
      s.url.endsWith('/events') ? body.response() : json(connected),
    );
    const t = new HttpTransport({ baseUrl: BASE, fetch, pageKey: KEY });
    await t.call('status', {});
    const stop = t.subscribe({ event: () => undefined, connection: () => undefined });
    await until(() => sent.length === 2);
    expect(sent.map((s) => [s.url, s.pageKey])).toEqual([
      [`${BASE}/status`, KEY],
      [`${BASE}/events`, KEY],
    ]);
    stop();
  });

  it('a stream refused as unauthorized: signed out, and no more tries', async () => {
    const { fetch, sent } = fakeFetch(() =>
      problem(401, { code: 'unauthorized', detail: 'sign in with the link netcli gui opens' }),
    );
    const links: TransportState[] = [];
    const t = new HttpTransport({
      baseUrl: BASE,
      fetch,
      pageKey: KEY,
      backoff: { delayMs: () => 1 },
    });
    const stop = t.subscribe({ event: () => undefined, connection: (l) => void links.push(l) });
    await until(() => links.length === 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(links).toEqual(['signed-out']);
    expect(sent).toHaveLength(1);
    stop();
  });

  it('lists the browsers signed in and ends one', async () => {
    const { fetch, sent } = fakeFetch((s) =>
      s.method === 'GET'
        ? json({ sessions: [session('s1', true), session('s2', false)] })
        : new Response(null, { status: 204 }),
    );
    const t = new HttpTransport({ baseUrl: BASE, fetch, pageKey: KEY });
    const listed = await t.browserSessions!.list();
    expect(listed.map((s) => [s.id, s.current])).toEqual([
      ['s1', true],
      ['s2', false],
    ]);
    await t.browserSessions!.end('s2');
    expect(sent.map((s) => [s.method, s.url, s.pageKey])).toEqual([
      ['GET', `${BASE}/gui/sessions`, KEY],
      ['DELETE', `${BASE}/gui/sessions/s2`, KEY],
    ]);
  });

  it('ending one that is gone rejects with its code', async () => {
    const { fetch } = fakeFetch(() =>
      problem(404, { code: 'not-found', detail: 'no such browser' }),
    );
    const t = new HttpTransport({ baseUrl: BASE, fetch, pageKey: KEY });
    await expect(t.browserSessions!.end('s9')).rejects.toMatchObject({ code: 'not-found' });
  });
});
