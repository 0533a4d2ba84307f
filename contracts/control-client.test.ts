// The control-plane client against a fake fetch: what it sends for each route, what it returns,
// and how each way a call can fail reaches the caller.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError } from './api-error.js';
import { createControlClient, controlRouteUrl } from './control-client.js';
import { controlRoutes, type RouteDef } from './control-routes.js';
import type { FetchLike } from './route-client.js';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

/** A fetch that records each request and answers with `answer`. */
function fakeFetch(answer: (req: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    const req: Sent = {
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body === undefined ? undefined : String(init.body),
      signal: init.signal!,
    };
    sent.push(req);
    return answer(req);
  };
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const problem = (status: number, code: string, detail: string, extra = {}) =>
  new Response(
    JSON.stringify({
      type: `urn:ferry:problem:${code}`,
      title: code,
      status,
      detail,
      code,
      ...extra,
    }),
    { status, headers: { 'content-type': 'application/problem+json' } },
  );

const HEALTH = { status: 'ok', version: '0.1.0', api: 'v1' };
const DEVICE = {
  id: 'dev_1',
  name: 'laptop',
  kind: 'laptop',
  wireguard_public_key: 'wg',
  ferry_public_key: 'fy',
  tunnel_ipv4: '10.64.0.2',
  tunnel_ipv6: 'fd00::2',
  current: true,
};
const STATUS = {
  status: 'connecting',
  latency: null,
  region: 'global',
  session_id: 's1',
  node_id: 'n1',
  protocol: 'wireguard',
  cipher: 'ChaCha20-Poly1305',
};
const ACCOUNT = '1234567890123456';

/** Rejects with the ApiError the call ends in (fails the test when the call succeeds). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  if (outcome.ok) throw new Error(`the call succeeded: ${JSON.stringify(outcome.v)}`);
  expect(outcome.e).toBeInstanceOf(ApiError);
  return outcome.e as ApiError;
}

describe('types', () => {
  // Checked by the type checker (npm run typecheck); the calls never run.
  it('derives each method from its route: what it needs is required, what it lacks refused', () => {
    const c = createControlClient({ baseUrl: 'http://c', fetch: async () => json(200, {}) });
    const calls = async () => {
      expectTypeOf(await c.health()).toEqualTypeOf<{ status: 'ok'; version: string; api: 'v1' }>();
      expectTypeOf(await c.revokeDevice({ params: { id: 'x' } })).toEqualTypeOf<void>();
      // Query numbers travel as text: either is accepted.
      await c.nodePeers({ query: { after: 3, wait: '25' } });
      await c.connect();
      // @ts-expect-error the path parameter is required
      await c.getDevice();
      // @ts-expect-error a GET has no body
      await c.health({ body: {} });
      // @ts-expect-error the sign-in body is required
      await c.createSession({});
      for await (const e of await c.events()) {
        if (e.event === 'revoked') expectTypeOf(e.data).toEqualTypeOf<{ device_id: string }>();
        // @ts-expect-error only the route's own events
        if (e.event === 'nonsense') return;
      }
    };
    expect(calls).toBeTypeOf('function');
  });
});

describe('requests', () => {
  it('sends every route to its method and path (path parameters filled in)', async () => {
    const { fetch, sent } = fakeFetch(() => problem(500, 'internal', 'fake'));
    const client = createControlClient({ baseUrl: 'http://ctrl:8080', fetch, token: () => 't' });
    const params = { id: 'dev_1', number: ACCOUNT, tag: 'work' };
    for (const [id, def] of Object.entries(controlRoutes) as [string, RouteDef][]) {
      const call = (client as unknown as Record<string, (i: unknown) => Promise<unknown>>)[id]!;
      await call({ params, body: {} }).catch(() => undefined);
      const req = sent.at(-1)!;
      const path = def.path
        .replace(':id', 'dev_1')
        .replace(':number', ACCOUNT)
        .replace(':tag', 'work');
      expect(`${req.method} ${req.url}`, id).toBe(`${def.method} http://ctrl:8080/api/v1${path}`);
      expect(req.headers.authorization, id).toBe(def.auth === 'none' ? undefined : 'Bearer t');
    }
    expect(sent).toHaveLength(Object.keys(controlRoutes).length);
  });

  it('accepts the base URL bare, with a trailing slash, or with either API prefix', async () => {
    const { fetch, sent } = fakeFetch(() => json(200, HEALTH));
    for (const baseUrl of [
      'http://ctrl:8080',
      'http://ctrl:8080/',
      'http://ctrl:8080/api/v1',
      'http://ctrl:8080/api/v1/',
      'http://ctrl:8080/v1',
      'https://example.com/ferry/',
    ])
      await createControlClient({ baseUrl, fetch }).health();
    expect(sent.map((r) => r.url)).toEqual([
      'http://ctrl:8080/api/v1/health',
      'http://ctrl:8080/api/v1/health',
      'http://ctrl:8080/api/v1/health',
      'http://ctrl:8080/api/v1/health',
      'http://ctrl:8080/v1/health',
      'https://example.com/ferry/api/v1/health',
    ]);
    expect(() => createControlClient({ baseUrl: 'ctrl:8080', fetch })).toThrow(TypeError);
  });

  it('sends the body as JSON, exactly as given', async () => {
    const { fetch, sent } = fakeFetch(() => json(201, { token: 'device-token', device: DEVICE }));
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 'unused' });
    const body = {
      account_number: ACCOUNT,
      device: { name: 'laptop', kind: 'Laptop', wireguard_public_key: 'a', ferry_public_key: 'b' },
    };
    await client.createSession({ body });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      url: 'http://ctrl/api/v1/sessions',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    // Sent as the caller wrote it (the server parses letter case; the client does not rewrite).
    expect(JSON.parse(sent[0]!.body!)).toEqual(body);
    // A public route: the token stays home.
    expect(sent[0]!.headers.authorization).toBeUndefined();
  });

  it('sends no body when none is given, and none on routes without one', async () => {
    const { fetch, sent } = fakeFetch((r) =>
      r.url.endsWith('/disconnect') ? json(200, { status: 'disconnected' }) : json(200, {}),
    );
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 't' });
    await client.disconnect();
    await client.connect().catch(() => undefined);
    for (const req of sent) {
      expect(req.body).toBeUndefined();
      expect(req.headers['content-type']).toBeUndefined();
    }
  });

  it('builds the query from the values given, leaving out those not given', async () => {
    const { fetch, sent } = fakeFetch((r) =>
      r.url.includes('/nodes')
        ? json(200, { nodes: [] })
        : json(200, { version: 4, snapshot: false, peers: [] }),
    );
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 'n' });
    await client.nodePeers({ query: { after: 3, wait: 25 } });
    await client.listNodes({ query: { region: 'asia-east' } });
    await client.listNodes();
    await client.listNodes({ query: { region: undefined } });
    expect(sent.map((r) => r.url)).toEqual([
      'http://ctrl/api/v1/node/peers?after=3&wait=25',
      'http://ctrl/api/v1/nodes?region=asia-east',
      'http://ctrl/api/v1/nodes',
      'http://ctrl/api/v1/nodes',
    ]);
  });

  it('escapes path parameters and refuses to call without one', async () => {
    const { fetch, sent } = fakeFetch(() => json(200, DEVICE));
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 't' });
    await client.getDevice({ params: { id: 'a/b?c' } });
    expect(sent[0]!.url).toBe('http://ctrl/api/v1/devices/a%2Fb%3Fc');
    await expect(client.getDevice({ params: { id: '' } })).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(1);
  });

  it('asks for the token on every call that needs one', async () => {
    const { fetch, sent } = fakeFetch(() => json(200, STATUS));
    let token = 'first';
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: async () => token });
    await client.status();
    token = 'second';
    await client.status();
    expect(sent.map((r) => r.headers.authorization)).toEqual(['Bearer first', 'Bearer second']);
  });

  it('gives the URL of a route for tools that send requests themselves', () => {
    expect(controlRouteUrl('http://ctrl:8080/v1/', 'connect')).toBe('http://ctrl:8080/v1/connect');
    expect(controlRouteUrl('http://ctrl', 'adminSetPlan', { params: { number: ACCOUNT } })).toBe(
      `http://ctrl/api/v1/admin/accounts/${ACCOUNT}/plan`,
    );
  });
});

describe('answers', () => {
  it('returns the answer as its schema parses it (members outside the contract dropped)', async () => {
    const { fetch } = fakeFetch(() => json(200, { ...DEVICE, surprise: 'x' }));
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 't' });
    expect(await client.getDevice({ params: { id: 'dev_1' } })).toEqual(DEVICE);
  });

  it('resolves routes that answer with no content', async () => {
    const { fetch, sent } = fakeFetch(() => new Response(null, { status: 204 }));
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 't' });
    await expect(client.revokeDevice({ params: { id: 'dev_1' } })).resolves.toBeUndefined();
    expect(sent[0]).toMatchObject({ method: 'DELETE', url: 'http://ctrl/api/v1/devices/dev_1' });
  });

  it('refuses an answer that does not match the contract, naming the fields', async () => {
    const { fetch } = fakeFetch(() => json(200, { ...HEALTH, api: 'v2', version: 1 }));
    const e = await failure(createControlClient({ baseUrl: 'http://ctrl', fetch }).health());
    expect(e).toMatchObject({ code: 'bad-response', status: 200, route: 'GET /health' });
    expect(e.detail).toMatch(/version/);
    expect(e.detail).toMatch(/api/);
  });

  it('refuses an answer that is not JSON', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>ok</html>', { status: 200 }));
    const e = await failure(createControlClient({ baseUrl: 'http://ctrl', fetch }).health());
    expect(e).toMatchObject({ code: 'bad-response', status: 200 });
  });
});

describe('errors', () => {
  it("carries the problem's status, code, detail and extra members", async () => {
    const devices = [DEVICE];
    const { fetch } = fakeFetch(() =>
      problem(409, 'device-limit', 'the plan allows 3 devices', { device_limit: 3, devices }),
    );
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch });
    const e = await failure(
      client.createSession({
        body: {
          account_number: ACCOUNT,
          device: { name: 'x', kind: 'phone', wireguard_public_key: 'a', ferry_public_key: 'b' },
        },
      }),
    );
    expect(e).toMatchObject({
      code: 'device-limit',
      status: 409,
      detail: 'the plan allows 3 devices',
      route: 'POST /sessions',
      errors: undefined,
    });
    expect(e.problem).toMatchObject({ device_limit: 3, devices });
    expect(e.message).toBe('POST /sessions: 409 device-limit: the plan allows 3 devices');
  });

  it('carries the list of offending fields of a validation error', async () => {
    const errors = [{ field: 'protocol', message: 'one of', allowed: ['wireguard', 'ferry'] }];
    const { fetch } = fakeFetch(() =>
      problem(400, 'validation-failed', 'invalid body: protocol', { errors }),
    );
    const client = createControlClient({ baseUrl: 'http://ctrl', fetch, token: () => 't' });
    const e = await failure(client.connect({ body: { protocol: 'ipsec' } }));
    expect(e).toMatchObject({ code: 'validation-failed', status: 400, errors });
  });

  it('keeps a code this build does not know, and Retry-After', async () => {
    const { fetch } = fakeFetch(() =>
      problem(503, 'maintenance-window', 'back soon', {
        errors: 'not a list',
      }),
    );
    const slow = fakeFetch(() => {
      const r = problem(429, 'rate-limited', 'too many requests; retry in 7 s');
      r.headers.set('retry-after', '7');
      return r;
    });
    const e = await failure(createControlClient({ baseUrl: 'http://c', fetch }).health());
    expect(e).toMatchObject({ code: 'maintenance-window', status: 503, detail: 'back soon' });
    expect(e.errors).toBeUndefined();
    const limited = await failure(
      createControlClient({ baseUrl: 'http://c', fetch: slow.fetch }).health(),
    );
    expect(limited).toMatchObject({ code: 'rate-limited', status: 429, retryAfterSeconds: 7 });
  });

  it('turns an error answer without a problem (a proxy page) into bad-response with its status', async () => {
    const { fetch } = fakeFetch(
      () => new Response('<h1>502 Bad Gateway</h1>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const e = await failure(createControlClient({ baseUrl: 'http://c', fetch }).health());
    expect(e).toMatchObject({ code: 'bad-response', status: 502 });
  });

  it('tells an unreachable server from a slow one and from a cancelled call', async () => {
    const refused = fakeFetch(() => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    });
    const e1 = await failure(
      createControlClient({ baseUrl: 'http://c', fetch: refused.fetch }).health(),
    );
    expect(e1).toMatchObject({ code: 'unreachable', status: undefined });
    expect(e1.detail).toMatch(/ECONNREFUSED/);

    // A server that never answers: the fetch ends only when its signal aborts.
    const silent = fakeFetch(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    );
    const client = createControlClient({ baseUrl: 'http://c', fetch: silent.fetch, timeoutMs: 20 });
    const e2 = await failure(client.health());
    expect(e2).toMatchObject({ code: 'timeout', status: undefined });

    const stop = new AbortController();
    const pending = client.health({ signal: stop.signal, timeoutMs: 60_000 });
    stop.abort();
    expect(await failure(pending)).toMatchObject({ code: 'aborted' });

    // Already cancelled: nothing is sent.
    const calls = silent.sent.length;
    expect(await failure(client.health({ signal: stop.signal }))).toMatchObject({
      code: 'aborted',
    });
    expect(silent.sent).toHaveLength(calls);
  });

  it('times out an answer whose body stops coming, and lets a long poll take longer', async () => {
    const stalled = fakeFetch((req) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"version":'));
          req.signal.addEventListener('abort', () => c.error(new Error('aborted')));
        },
      });
      return new Response(body, { status: 200 });
    });
    const client = createControlClient({
      baseUrl: 'http://c',
      fetch: stalled.fetch,
      token: () => 'n',
      timeoutMs: 20,
    });
    expect(await failure(client.nodePeers({ query: { after: 0, wait: 0 } }))).toMatchObject({
      code: 'timeout',
    });

    const late = fakeFetch(
      () =>
        new Promise<Response>((r) =>
          setTimeout(() => r(json(200, { version: 1, snapshot: true, peers: [] })), 60),
        ),
    );
    const patient = createControlClient({
      baseUrl: 'http://c',
      fetch: late.fetch,
      token: () => 'n',
      timeoutMs: 20,
    });
    await expect(
      patient.nodePeers({ query: { after: 0, wait: 25 }, timeoutMs: 1_000 }),
    ).resolves.toEqual({ version: 1, snapshot: true, peers: [] });
  });

  it('never puts the token or the filled-in path into the error', async () => {
    const { fetch } = fakeFetch(() => problem(404, 'not-found', 'no such account'));
    const admin = createControlClient({ baseUrl: 'http://c', fetch, token: () => 'secret-admin' });
    const e = await failure(
      admin.adminSetPlan({ params: { number: ACCOUNT }, body: { plan: 'premium' } }),
    );
    expect(e.message).toBe('PUT /admin/accounts/:number/plan: 404 not-found: no such account');
    expect(JSON.stringify({ ...e, message: e.message })).not.toMatch(/secret-admin|1234567890/);
  });
});

/** A server-sent event stream answer; `push` adds text, `end` and `fail` finish it. */
function sseAnswer(signal: AbortSignal) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      signal.addEventListener('abort', () => c.error(new Error('aborted')));
    },
  });
  const response = new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
  });
  return {
    response,
    push: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
    fail: () => controller.error(new TypeError('terminated')),
  };
}

describe('event streams', () => {
  function setup(timeoutMs?: number) {
    let stream!: ReturnType<typeof sseAnswer>;
    const { fetch, sent } = fakeFetch((req) => {
      stream = sseAnswer(req.signal);
      return stream.response;
    });
    const client = createControlClient({
      baseUrl: 'http://c',
      fetch,
      token: () => 'device-token',
      timeoutMs,
    });
    return { client, sent, stream: () => stream };
  }

  it('yields typed events, skipping keepalives and event names it does not know', async () => {
    const { client, sent, stream } = setup();
    const events = await client.events();
    expect(sent[0]).toMatchObject({
      method: 'GET',
      url: 'http://c/api/v1/events',
      headers: { authorization: 'Bearer device-token', accept: 'text/event-stream' },
    });
    stream().push(`event: status\ndata: ${JSON.stringify(STATUS)}\n\n: keepalive\n\n`);
    stream().push(
      `event: future-event\ndata: {}\n\nevent: keys\ndata: ${JSON.stringify(DEVICE)}\n\n`,
    );
    stream().push('event: revoked\ndata: {"device_id":"dev_1"}\n\n');
    stream().end();
    const seen = [];
    for await (const e of events) seen.push(e);
    expect(seen).toEqual([
      { event: 'status', data: STATUS, id: undefined },
      { event: 'keys', data: DEVICE, id: undefined },
      { event: 'revoked', data: { device_id: 'dev_1' }, id: undefined },
    ]);
  });

  it('refuses an event whose data does not match its schema', async () => {
    const { client, stream } = setup();
    const events = await client.events();
    stream().push('event: status\ndata: {"status":"teleporting"}\n\n');
    const iterator = events[Symbol.asyncIterator]();
    const e = await failure(iterator.next());
    expect(e).toMatchObject({ code: 'bad-response', route: 'GET /events' });
  });

  it('ends the iteration on close(), and reports a broken connection', async () => {
    const { client, sent, stream } = setup();
    const events = await client.events();
    stream().push(`event: status\ndata: ${JSON.stringify(STATUS)}\n\n`);
    const seen = [];
    for await (const e of events) {
      seen.push(e.event);
      events.close();
    }
    expect(seen).toEqual(['status']);
    expect(sent[0]!.signal.aborted).toBe(true);

    // Closed before anyone iterated: the connection is let go all the same.
    const unread = await client.events();
    unread.close();
    expect(sent[1]!.signal.aborted).toBe(true);

    const broken = await client.events();
    stream().fail();
    expect(await failure(broken[Symbol.asyncIterator]().next())).toMatchObject({
      code: 'unreachable',
    });
  });

  it('ends the iteration when the caller aborts', async () => {
    const { client } = setup();
    const stop = new AbortController();
    const events = await client.events({ signal: stop.signal });
    setTimeout(() => stop.abort(), 10);
    const seen = [];
    for await (const e of events) seen.push(e);
    expect(seen).toEqual([]);
  });

  it('applies the time limit to the stream opening only', async () => {
    const { client, stream } = setup(20);
    const events = await client.events();
    setTimeout(() => {
      stream().push(`event: status\ndata: ${JSON.stringify(STATUS)}\n\n`);
      stream().end();
    }, 80);
    const seen = [];
    for await (const e of events) seen.push(e.event);
    expect(seen).toEqual(['status']);
  });

  it('turns a refused stream into the problem, and a non-stream answer into bad-response', async () => {
    const refused = fakeFetch(() =>
      problem(401, 'unauthorized', 'a valid device token is required'),
    );
    const e = await failure(
      createControlClient({ baseUrl: 'http://c', fetch: refused.fetch }).events(),
    );
    expect(e).toMatchObject({ code: 'unauthorized', status: 401, route: 'GET /events' });

    const html = fakeFetch(
      () => new Response('<html/>', { headers: { 'content-type': 'text/html' } }),
    );
    expect(
      await failure(createControlClient({ baseUrl: 'http://c', fetch: html.fetch }).events()),
    ).toMatchObject({ code: 'bad-response', status: 200 });
  });
});

const MiB = 1024 * 1024;

/**
 * An answer body made on demand, `chunk` bytes a pull, `total` in all (far more than any cap):
 * it counts what the client pulled and whether it let the stream go. The stream errors when the
 * call's signal aborts, as fetch's body does.
 */
function floodBody(signal: AbortSignal, total: number, chunk = 64 * 1024, fill = 'x') {
  const piece = new TextEncoder().encode(fill.repeat(chunk));
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      signal.addEventListener('abort', () => c.error(new Error('aborted')));
    },
    pull(c) {
      if (seen.pulled >= total) return c.close();
      seen.pulled += piece.byteLength;
      c.enqueue(piece);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

/** A snapshot of `count` peers, each member as long as the control plane makes it. */
function peerSnapshot(count: number): string {
  const key = 'A'.repeat(43) + '=';
  const peers = Array.from({ length: count }, (_, i) => ({
    device_id: `dev_${String(i).padStart(12, '0')}`,
    op: 'upsert',
    wireguard_public_key: key,
    ferry_public_key: key,
    tunnel_ipv4: '10.255.255.254',
    tunnel_ipv6: 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:fffe',
    bandwidth_limit_mbps: 100_000,
    data_cap_bytes: 1_099_511_627_776,
  }));
  return JSON.stringify({ version: 9_007_199_254, snapshot: true, peers });
}

describe('answer size', () => {
  /** A client whose every answer is a flood of `total` bytes, `status`, `headers`. */
  function flooded(total: number, init: ResponseInit = { status: 200 }, fill = 'x') {
    let seen!: ReturnType<typeof floodBody>['seen'];
    const { fetch, sent } = fakeFetch((req) => {
      const flood = floodBody(req.signal, total, 64 * 1024, fill);
      seen = flood.seen;
      return new Response(flood.body, init);
    });
    const client = createControlClient({ baseUrl: 'http://c', fetch, token: () => 't' });
    return { client, sent, seen: () => seen };
  }

  it('refuses a JSON answer past 4 MiB, stops reading there and lets the stream go', async () => {
    const { client, sent, seen } = flooded(64 * MiB);
    const e = await failure(client.getAccount());
    expect(e).toMatchObject({ code: 'bad-response', status: 200, route: 'GET /account' });
    expect(e.detail).toBe(
      "the server's answer is larger than 4 MiB, the most read of one answer to GET /account",
    );
    // At most one piece beyond the cap was pulled, and the connection was let go.
    expect(seen().pulled).toBeLessThanOrEqual(4 * MiB + 2 * 64 * 1024);
    expect(seen().cancelled || sent[0]!.signal.aborted).toBe(true);
  });

  it('refuses a refusal past the cap the same way (a problem body is read with the same limit)', async () => {
    const { client, seen } = flooded(64 * MiB, { status: 500 }, '{');
    const e = await failure(client.health());
    expect(e).toMatchObject({ code: 'bad-response', status: 500, route: 'GET /health' });
    expect(e.detail).toMatch(/larger than 4 MiB/);
    expect(seen().pulled).toBeLessThanOrEqual(4 * MiB + 2 * 64 * 1024);
  });

  it('refuses at once an answer whose Content-Length is past the cap, reading none of it', async () => {
    const { client, sent, seen } = flooded(64 * MiB, {
      status: 200,
      headers: { 'content-length': String(5 * 1024 * MiB) },
    });
    const e = await failure(client.listNodes());
    expect(e).toMatchObject({ code: 'bad-response', status: 200, route: 'GET /nodes' });
    expect(e.detail).toMatch(/larger than 4 MiB/);
    // A ReadableStream pulls once to fill its queue when it is made; nothing was read after.
    expect(seen().pulled).toBeLessThanOrEqual(64 * 1024);
    expect(seen().cancelled || sent[0]!.signal.aborted).toBe(true);
  });

  it('reads an answer just under the cap whole', async () => {
    const pad = 'x'.repeat(4 * MiB - 200);
    const { fetch } = fakeFetch(() => json(200, { ...HEALTH, pad }));
    await expect(createControlClient({ baseUrl: 'http://c', fetch }).health()).resolves.toEqual(
      HEALTH,
    );
  });

  it('reads the peer feed up to 64 MiB: a snapshot of 100,000 peers fits with room to spare', async () => {
    const snapshot = peerSnapshot(100_000);
    expect(new TextEncoder().encode(snapshot).byteLength).toBeLessThan(48 * MiB);
    const { fetch } = fakeFetch(() => new Response(snapshot, { status: 200 }));
    const node = createControlClient({ baseUrl: 'http://c', fetch, token: () => 'n' });
    const feed = await node.nodePeers({ query: { after: 0, wait: 0 } });
    expect(feed.peers).toHaveLength(100_000);

    const { client, seen } = flooded(256 * MiB);
    const e = await failure(client.nodePeers({ query: { after: 0, wait: 0 } }));
    expect(e).toMatchObject({ code: 'bad-response', route: 'GET /node/peers' });
    expect(e.detail).toBe(
      "the server's answer is larger than 64 MiB, the most read of one answer to GET /node/peers",
    );
    expect(seen().pulled).toBeLessThanOrEqual(64 * MiB + 2 * 64 * 1024);
  });

  it('caps each event of a stream, not the stream: many events pass, one endless line does not', async () => {
    // 4,096 events of 4 KiB: 16 MiB in all, more than a JSON answer may hold.
    const event = `event: revoked\ndata: {"device_id":"${'d'.repeat(4_060)}"}\n\n`;
    let sentEvents = 0;
    const many = fakeFetch(() => {
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sentEvents === 4_096) return c.close();
          sentEvents++;
          c.enqueue(new TextEncoder().encode(event));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    let seen = 0;
    const client = createControlClient({
      baseUrl: 'http://c',
      fetch: many.fetch,
      token: () => 't',
    });
    for await (const e of await client.events()) if (e.event === 'revoked') seen++;
    expect(seen).toBe(4_096);

    // One data line that never ends.
    const {
      fetch,
      sent,
      seen: pulled,
    } = (() => {
      let s!: ReturnType<typeof floodBody>['seen'];
      const f = fakeFetch((req) => {
        // 8 MiB: enough to show where reading stops, and quick to read whole (before the cap,
        // the parser read it all, scanning its growing line on each piece).
        const flood = floodBody(req.signal, 8 * MiB);
        s = flood.seen;
        const head = new TextEncoder().encode('event: revoked\ndata: {"device_id":"');
        const reader = flood.body.getReader();
        let first = true;
        const body = new ReadableStream<Uint8Array>({
          async pull(c) {
            if (first) {
              first = false;
              return c.enqueue(head);
            }
            const { done, value } = await reader.read();
            if (done) c.close();
            else c.enqueue(value);
          },
          cancel: (why) => reader.cancel(why),
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      });
      return { ...f, seen: () => s };
    })();
    const endless = createControlClient({ baseUrl: 'http://c', fetch, token: () => 't' });
    const iterator = (await endless.events())[Symbol.asyncIterator]();
    const e = await failure(iterator.next());
    expect(e).toMatchObject({ code: 'bad-response', route: 'GET /events' });
    expect(e.detail).toBe('the server sent an event larger than 1 MiB, the most read of one event');
    expect(pulled().pulled).toBeLessThanOrEqual(MiB + 2 * 64 * 1024);
    expect(pulled().cancelled || sent[0]!.signal.aborted).toBe(true);
  });
});
