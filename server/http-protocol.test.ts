// HTTP itself, as hostile clients speak it: a JSON null body, wrong methods, what Fastify and
// Node refuse before a route runs, compressed bodies, Expect: 100-continue and bodies over the
// cap. Every answer is problem+json from the one error table; no connection is reset under an
// answer.
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from './app.js';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
  type Reply,
} from './testing/control-plane-harness.js';
import {
  parseResponses,
  rawExchange,
  type RawResponse,
} from '../platform/http/testing/raw-http.js';

function expectProblem(r: Reply | RawResponse, status: number, code: string) {
  const body = typeof r.body === 'string' && r.body ? JSON.parse(r.body) : r.body;
  expect(r.status, JSON.stringify(body)).toBe(status);
  expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ status, code, type: `urn:ferry:problem:${code}` });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe.each(backends())('HTTP edges on %s', (backend) => {
  let h: Harness;
  let port: number;
  let device: { token: string; device: any };
  beforeAll(async () => {
    h = await startControlPlane(backend);
    await h.plane.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.plane.app.server.address() as AddressInfo).port;
    device = await h.signIn(await h.createAccount());
  });
  afterAll(async () => h?.close());

  const raw = (head: string, opts?: Parameters<typeof rawExchange>[2]) =>
    rawExchange(port, head, opts);

  it('refuses a JSON null body instead of taking it for {}', async () => {
    expectProblem(await h.call('POST', '/accounts', { raw: 'null' }), 400, 'validation-failed');
    const connect = await h.call('POST', '/connect', { token: device.token, raw: 'null' });
    expectProblem(connect, 400, 'validation-failed');
    expect(connect.body.errors[0]).toMatchObject({ field: '' });
    expect((await h.call('GET', '/status', { token: device.token })).body.status).toBe(
      'disconnected',
    );
    expectProblem(await h.call('POST', '/sessions', { raw: ' null ' }), 400, 'validation-failed');
    // No body at all is still the empty one where the route takes it.
    expect((await h.call('POST', '/accounts')).status).toBe(201);
  });

  it('answers 405 with Allow to a method a known path does not have', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/v1/health', 'GET, HEAD'],
      ['PUT', '/api/v1/connect', 'POST'],
      ['POST', '/v1/devices/dev_x', 'DELETE, GET, HEAD, PATCH'],
      ['OPTIONS', '/v1/openapi.json', 'GET, HEAD'],
      ['HEAD', '/v1/events', 'GET'],
    ] as const) {
      const r = await h.plane.app.inject({ method, url: path });
      expect(r.statusCode, `${method} ${path}`).toBe(405);
      expect(r.headers.allow).toBe(allow);
      if (method !== 'HEAD')
        expectProblem(
          { ...r, status: r.statusCode, body: r.body, headers: r.headers as any },
          405,
          'method-not-allowed',
        );
    }
    // Methods Fastify does not route (TRACE), routes with a body rule (QUERY), and methods
    // Node cannot even parse (FOO): the same answer.
    for (const method of ['TRACE', 'QUERY', 'FOO']) {
      const { responses } = await raw(
        `${method} /v1/status HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
      expect(responses[0]?.headers.allow, method).toBe('GET, HEAD');
      expectProblem(responses[0]!, 405, 'method-not-allowed');
    }
    // An unknown path stays 404, whatever the method.
    for (const method of ['GET', 'QUERY', 'TRACE']) {
      const { responses } = await raw(
        `${method} /v1/nope HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
      expectProblem(responses[0]!, 404, 'not-found');
    }
  });

  it('says when to retry a 503 no-node-available', async () => {
    // No node has registered in this plane: nothing to connect to.
    const r = await h.call('POST', '/connect', { token: device.token, body: { region: 'global' } });
    expectProblem(r, 503, 'no-node-available');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(String(r.headers['retry-after'])).toMatch(/^\d+$/);
  });

  it('answers what Fastify and Node refuse with problem+json, echoing nothing', async () => {
    const long = 'a'.repeat(150);
    const tooLong = await h.call('GET', `/devices/${long}`, { token: device.token });
    expect(JSON.stringify(expectProblem(tooLong, 414, 'uri-too-long'))).not.toContain(long);
    expectProblem(await h.call('GET', '/devices/%zz', { token: device.token }), 400, 'bad-request');
    expectProblem(await h.call('GET', '/he%zzalth'), 400, 'bad-request');

    const cases: [string, number, string][] = [
      ['GET /v1/health HTTP/1.1\r\nhost: x\r\nbad header: y\r\n\r\n', 400, 'bad-request'],
      [
        'POST /v1/accounts HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}',
        400,
        'bad-request',
      ],
      [
        `GET /v1/health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers-too-large',
      ],
      ['GET /v1/health HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\n\r\n', 417, 'expectation-failed'],
    ];
    for (const [head, status, code] of cases) {
      const { responses, ended } = await raw(head);
      expect(responses, head.slice(0, 40)).toHaveLength(1);
      expectProblem(responses[0]!, status, code);
      expect(ended).toBe('fin');
    }
  });

  it('refuses bodies in an encoding it does not decode', async () => {
    const body = gzipSync(JSON.stringify({ password: 'a long enough password' }));
    const r = await h.plane.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: body,
    });
    expect(r.headers['accept-encoding']).toBe('identity');
    expectProblem(
      { status: r.statusCode, headers: r.headers as any, body: r.body },
      415,
      'unsupported-content-encoding',
    );
    const plain = await h.plane.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: '{}',
    });
    expect(plain.statusCode).toBe(201);
  });

  it('decides Expect: 100-continue from Content-Length: 413 instead of 100', async () => {
    const over = await raw(
      `POST /v1/accounts HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${BODY_LIMIT + 1}\r\n\r\n`,
    );
    expect(over.responses.map((r) => r.status)).toEqual([413]);
    expectProblem(over.responses[0]!, 413, 'payload-too-large');
    expect(over.responses[0]!.headers.connection).toBe('close');
    expect(over.ended).toBe('fin');

    const body = JSON.stringify({});
    const within = await raw(
      `POST /v1/accounts HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
      { body: Buffer.from(body) },
    );
    expect(within.responses.map((r) => r.status)).toEqual([100, 201]);
  });

  it('answers an oversized upload with 413 and closes without resetting the connection', async () => {
    // The client keeps sending after the answer, as uploading clients do.
    const big = Buffer.alloc(8 * 1024 * 1024, 'a');
    const r = await raw(
      `POST /v1/accounts HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${big.length}\r\n\r\n`,
      { body: big, chunk: 64 * 1024, pauseMs: 1, waitMs: 5_000 },
    );
    expect(r.responses.map((x) => x.status)).toEqual([413]);
    expectProblem(r.responses[0]!, 413, 'payload-too-large');
    expect(r.ended).toBe('fin');
    // The node routes have their own, larger cap; a key rotation body is small.
    expect(
      (
        await h.call('PUT', `/devices/${device.device.id}/keys`, {
          token: device.token,
          body: { wireguard_public_key: newPublicKey() },
        })
      ).status,
    ).toBe(200);
  });
});

describe('shutting down', () => {
  it('answers 503 problem+json with Retry-After to requests that arrive meanwhile', async () => {
    const h = await startControlPlane('sqlite');
    await h.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (h.plane.app.server.address() as AddressInfo).port;
    const node = await h.addHealthyNode('global');
    const version = (await h.call('GET', '/node/peers?after=0', { token: node.token })).body
      .version;
    // A long poll keeps the server in its grace period.
    const poll = h.call('GET', `/node/peers?after=${version}&wait=30`, { token: node.token });
    // A client in the middle of sending its request when the shutdown begins.
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('GET /v1/health HTTP/1.1\r\nhost: x\r\n');
    let received = '';
    socket.on('data', (d) => (received += d));
    const closed = new Promise((r) => socket.once('close', r));
    await new Promise((r) => setTimeout(r, 50));
    const closing = h.plane.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('\r\n');
    await closed;
    const [late] = parseResponses(Buffer.from(received, 'latin1'));
    expectProblem(late!, 503, 'unavailable');
    expect(Number(late!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(late!.headers.connection).toBe('close');
    expect((await poll).status).toBe(200);
    await closing;
  });
});
