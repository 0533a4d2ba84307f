// The engine host over a real unix socket, with the in-memory engine: every route through the
// typed client, the refusals a client sees (validation with allowed values, foreign Host and
// Origin, 404/405), the socket file's life, the event stream and cancelled connects.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  createLocalClient,
  localRoutes,
  type LocalClient,
  type LocalRouteId,
} from '../../contracts/index.js';
import { FakeEngine } from '../engine.fake.js';
import { ENGINE_ERROR_CODES, ENGINE_ERROR_STATUS } from '../../contracts/engine-errors.js';
import { FerryError } from '../errors.js';
import { startLocalApiServer, type LocalApiServer } from './local-api-server.js';
import { UNKNOWN_CODE_STATUS, engineErrorStatus } from './problems.js';
import { SocketFileError } from './socket-file.js';
import { createUnixFetch, type UnixFetch } from './unix-fetch.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request over the socket with exactly these headers (the typed client sends its own). */
function raw(
  socketPath: string,
  method: string,
  urlPath: string,
  opts: { headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method,
        path: urlPath,
        headers: { host: 'ferry.local', ...opts.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function waitFor(check: () => boolean, what: string, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the local API host', () => {
  let dir: string;
  let socketPath: string;
  let engine: FakeEngine;
  let server: LocalApiServer | undefined;
  let unixFetch: UnixFetch;
  let client: LocalClient;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-host-'));
    socketPath = path.join(dir, 'run', 'engine.sock');
    engine = new FakeEngine();
    server = await startLocalApiServer({ engine, socketPath, group: null, heartbeatMs: 50 });
    unixFetch = createUnixFetch(socketPath);
    client = createLocalClient({ fetch: unixFetch });
  });
  afterEach(async () => {
    await unixFetch.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const setUp = async () => {
    await client.init({
      body: { endpoint: 'https://ferry.example/api/v1', protocol: 'wireguard' },
    });
    return client.createAccount({ body: {} });
  };

  it('serves every route of the table through the typed client', async () => {
    const session = await setUp();
    const other = await engine.login({ account_number: session.account_number });
    // Back on the first device: the other one is a second sign-in of the same account.
    engine.session = {
      account: engine.accounts.get(session.account_number)!,
      deviceId: session.device.id,
    };
    const calls: Record<LocalRouteId, () => Promise<unknown>> = {
      status: () => client.status(),
      connect: () => client.connect({ body: { region: 'asia-east', protocol: 'WireGuard' } }),
      disconnect: () => client.disconnect(),
      events: async () => {
        const stream = await client.events();
        for await (const e of stream) {
          stream.close();
          return e;
        }
      },
      getConfig: () => client.getConfig(),
      patchConfig: () => client.patchConfig({ body: { kill_switch: false } }),
      setConfigKey: () =>
        client.setConfigKey({ params: { key: 'dns' }, body: { value: '9.9.9.9' } }),
      init: () => client.init({ body: { endpoint: 'https://ferry.example' } }),
      createAccount: async () => session,
      login: async () => other,
      logout: async () => 'checked below',
      account: () => client.account(),
      listDevices: () => client.listDevices(),
      renameDevice: () =>
        client.renameDevice({ params: { id: other.device.id }, body: { name: 'phone' } }),
      revokeDevice: () => client.revokeDevice({ params: { id: other.device.id } }),
      addDevice: () =>
        client.addDevice({
          body: { kind: 'Phone', name: 'pixel', region: 'asia-east', allow_lan: true },
        }),
      listRegions: () => client.listRegions(),
      addRegionRule: () =>
        client.addRegionRule({ body: { area: 'asia', strategy: 'least-load', name: 'near' } }),
      removeRegionRule: () => client.removeRegionRule({ params: { name: 'near' } }),
      latencyCheck: () => client.latencyCheck({ body: { all: true } }),
      apiAccess: () => client.apiAccess(),
      testApiAccess: () => client.testApiAccess({ body: { method: 'relays' } }),
      useApiAccess: () => client.useApiAccess({ body: { method: 'direct' } }),
      listServices: () => client.listServices(),
      addSplitRule: () => client.addSplitRule({ body: { domain: '*.Example.CN.', via: 'Direct' } }),
      listSplitRules: () => client.listSplitRules(),
      removeSplitRule: () => client.removeSplitRule({ query: { domain: 'example.cn' } }),
      // The fake engine runs no programs: the refusal crosses the API with its code.
      splitExec: () =>
        client.splitExec({ body: { pid: 4242, via: 'direct' } }).catch((e: ApiError) => e.code),
      addService: () =>
        client.addService({
          body: { name: 'Office', cidrs: ['10.20.0.0/16'], domains: ['Wiki.Corp.Example'] },
        }),
      startTunnel: () =>
        client.startTunnel({ body: { service: 'office', tag: 'Work', region: 'asia-east' } }),
      listTunnels: () => client.listTunnels(),
      stopTunnel: () => client.stopTunnel({ params: { tag: 'work' } }),
      removeService: () => client.removeService({ params: { name: 'office' } }),
      streamTest: async () => {
        await client.connect({ body: { region: 'asia-east' } });
        return client.streamTest({ body: { platform: 'netflix' } });
      },
      diagnose: () => client.diagnose(),
      // This host was started without the web graphical mode.
      openGui: () => client.openGui().catch((e: ApiError) => e.code),
    };
    expect(Object.keys(calls).sort()).toEqual(Object.keys(localRoutes).sort());
    const results: Partial<Record<LocalRouteId, unknown>> = {};
    for (const id of Object.keys(calls) as LocalRouteId[]) results[id] = await calls[id]();

    expect(results.connect).toMatchObject({
      status: 'connected',
      region: 'asia-east',
      cipher: 'ChaCha20-Poly1305',
      exit_ip: { before: '198.18.5.10', after: '198.19.5.20' },
    });
    expect(results.disconnect).toMatchObject({ status: 'disconnected' });
    expect(results.openGui).toBe('not-supported');
    expect(results.splitExec).toBe('not-supported');
    expect(results.listSplitRules).toEqual({ rules: [{ domain: 'example.cn', via: 'direct' }] });
    expect(results.events).toMatchObject({ event: 'status', data: { status: 'disconnected' } });
    expect(results.patchConfig).toMatchObject({ changed: ['kill_switch'], effect: 'saved' });
    expect(engine.config.dns).toBe('9.9.9.9');
    expect(results.account).toMatchObject({ devices: { used: 2, limit: 5 } });
    expect(results.renameDevice).toMatchObject({ id: other.device.id, name: 'phone' });
    const added = results.addDevice as { device: { id: string }; config: string };
    expect(added).toMatchObject({ device: { name: 'pixel', kind: 'phone' }, region: 'asia-east' });
    expect(added.config).toContain(`PrivateKey = ${engine.addedDeviceKeys[0]}\n`);
    expect((await client.listDevices()).devices.map((d) => d.id)).toEqual([
      session.device.id,
      added.device.id,
    ]);
    expect(engine.rules).toEqual([]);
    expect((results.latencyCheck as { results: unknown[] }).results).toHaveLength(2);
    expect(results.addService).toEqual({
      name: 'office',
      builtin: false,
      description: null,
      cidrs: ['10.20.0.0/16'],
      domains: ['wiki.corp.example'],
    });
    expect((results.listServices as { services: { name: string }[] }).services).toContainEqual(
      expect.objectContaining({ name: 'github', builtin: true }),
    );
    expect(results.startTunnel).toMatchObject({
      tag: 'work',
      service: 'office',
      status: 'connected',
      region: 'asia-east',
      destinations: 2,
    });
    expect(results.listTunnels).toEqual({ tunnels: [results.startTunnel] });
    expect(results.stopTunnel).toEqual({ tag: 'work', service: 'office', unregistered: true });
    expect(engine.serviceTunnels.own).toEqual([]);
    expect(results.streamTest).toMatchObject({ platform: 'netflix', verdict: 'ok', matches: true });
    expect(results.diagnose).toMatchObject({ problems: 0, checks: expect.any(Array) });
    expect(await client.logout()).toEqual({ signed_in: false });
    expect((await client.status()).signed_in).toBe(false);
  });

  it('answers the spec’s connect body and lists the allowed values of bad ones', async () => {
    await setUp();
    const spec = await raw(
      socketPath,
      'POST',
      '/api/v1/connect',
      json({
        encryption: 'AES-256-GCM',
        protocol: 'WireGuard',
        region: 'auto',
        usage: 'remote-work',
      }),
    );
    expect(spec.status).toBe(200);
    expect(spec.json).toMatchObject({ status: 'connected', latency: '12ms' });

    const bad = await raw(
      socketPath,
      'POST',
      '/api/v1/connect',
      json({ protocol: 'openvpn', encryption: 'rot13', colour: 'blue' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json).toMatchObject({
      type: 'urn:ferry:problem:validation-failed',
      status: 400,
      code: 'validation-failed',
    });
    const allowed = Object.fromEntries(
      (bad.json.errors as { field: string; allowed?: string[] }[]).map((e) => [e.field, e.allowed]),
    );
    expect(allowed.protocol).toEqual(['wireguard', 'ferry']);
    expect(allowed.encryption).toEqual(['AES-256-GCM', 'ChaCha20-Poly1305']);
    expect(allowed.colour).toEqual([
      'encryption',
      'protocol',
      'region',
      'usage',
      'mode',
      'platform',
      'via',
    ]);
    expect(bad.text).not.toContain('openvpn');
  });

  it('refuses a bad setting with the key’s allowed values, and the client keeps them', async () => {
    const e = await client
      .patchConfig({ body: { kill_switch: 'maybe' as unknown as boolean } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 400,
      code: 'validation-failed',
      errors: [{ field: 'kill_switch', allowed: ['true', 'false'] }],
    });
    // The engine's own refusal of a typed value keeps its code and fields.
    const set = await client
      .setConfigKey({ params: { key: 'obfuscation' }, body: { value: 'sometimes' } })
      .catch((x: unknown) => x);
    expect(set).toMatchObject({
      status: 400,
      code: 'config-invalid',
      errors: [{ field: 'obfuscation', allowed: ['auto', 'on', 'off', 'tcp', 'tls'] }],
    });
  });

  it('maps the engine’s and the control plane’s errors to their statuses', async () => {
    const notSetUp = await raw(socketPath, 'POST', '/api/v1/connect', json({}));
    expect(notSetUp.status).toBe(409);
    expect(notSetUp.json).toMatchObject({ code: 'service-not-configured', status: 409 });

    await client.init({ body: { endpoint: 'https://ferry.example' } });
    const notSignedIn = await client.connect({ body: {} }).catch((x: unknown) => x);
    expect(notSignedIn).toMatchObject({ status: 409, code: 'not-signed-in' });

    // The control plane's refusal: its code and status, and the members it adds.
    const wrong = await client
      .login({ body: { account_number: '1111 2222 3333 4444' } })
      .catch((x: unknown) => x);
    expect(wrong).toMatchObject({ status: 401, code: 'invalid-credentials' });
    const session = await client.createAccount({ body: {} });
    for (let i = 1; i < 5; i++) await engine.login({ account_number: session.account_number });
    const full = await client
      .login({ body: { account_number: session.account_number } })
      .catch((x: unknown) => x);
    expect(full).toMatchObject({ status: 409, code: 'device-limit' });
    expect((full as ApiError).problem?.devices).toHaveLength(5);

    const missing = await client
      .removeRegionRule({ params: { name: 'nope' } })
      .catch((x: unknown) => x);
    expect(missing).toMatchObject({ status: 404, code: 'rule-not-found' });
  });

  it('passes on a control plane it could not reach as 502/504 with the code kept', async () => {
    engine.account = async () => {
      throw new ApiError({ code: 'unreachable', detail: 'no answer', route: 'GET /account' });
    };
    engine.listDevices = async () => {
      throw new ApiError({ code: 'timeout', detail: 'no answer in 10 s', route: 'GET /devices' });
    };
    expect((await raw(socketPath, 'GET', '/api/v1/account')).json).toMatchObject({
      status: 502,
      code: 'unreachable',
    });
    expect((await raw(socketPath, 'GET', '/api/v1/devices')).json).toMatchObject({
      status: 504,
      code: 'timeout',
    });
  });

  it('passes on a control-plane answer it could not read (a 200 too large) as 502, detail kept', async () => {
    const detail =
      "the server's answer is larger than 4 MiB, the most read of one answer to GET /account";
    engine.account = async () => {
      throw new ApiError({ code: 'bad-response', detail, route: 'GET /account', status: 200 });
    };
    const r = await raw(socketPath, 'GET', '/api/v1/account');
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({ status: 502, code: 'bad-response', detail });
    // A face sees the refusal, not an answer that breaks the contract.
    expect(await client.account().catch((x: unknown) => x)).toMatchObject({
      status: 502,
      code: 'bad-response',
      detail,
    });
  });

  it('gives every engine error code a status, and unknown ones 500', async () => {
    for (const code of ENGINE_ERROR_CODES) expect(ENGINE_ERROR_STATUS[code]).toBeGreaterThan(399);
    expect(engineErrorStatus('config-invalid')).toBe(400);
    expect(engineErrorStatus('not-signed-in')).toBe(409);
    engine.getConfig = async () => {
      throw new FerryError('from-a-newer-engine' as never, 'something new');
    };
    const r = await raw(socketPath, 'GET', '/api/v1/config');
    expect(r.status).toBe(UNKNOWN_CODE_STATUS);
    expect(r.json).toMatchObject({ code: 'from-a-newer-engine', detail: 'something new' });
  });

  it('answers a bug, or an answer outside the contract, 500 without its text', async () => {
    engine.getConfig = async () => {
      throw new TypeError('secret detail 10.1.2.3');
    };
    const bug = await raw(socketPath, 'GET', '/api/v1/config');
    expect(bug.status).toBe(500);
    expect(bug.json).toMatchObject({ code: 'internal' });
    expect(bug.text).not.toContain('10.1.2.3');
    engine.status = () => ({ status: 'sideways' }) as never;
    const off = await raw(socketPath, 'GET', '/api/v1/status');
    expect(off.status).toBe(500);
    expect(off.json).toMatchObject({ code: 'internal' });
  });

  it('refuses a foreign Host and any Origin (DNS rebinding, web pages)', async () => {
    const foreign = await raw(socketPath, 'GET', '/api/v1/status', {
      headers: { host: 'evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({ code: 'forbidden', status: 403 });
    const withPort = await raw(socketPath, 'GET', '/api/v1/status', {
      headers: { host: 'ferry.local:8080' },
    });
    expect(withPort.status).toBe(403);
    const origin = await raw(socketPath, 'GET', '/api/v1/status', {
      headers: { origin: 'http://ferry.local' },
    });
    expect(origin.status).toBe(403);
    const nullOrigin = await raw(socketPath, 'POST', '/api/v1/disconnect', {
      headers: { origin: 'null' },
    });
    expect(nullOrigin.status).toBe(403);
    // On an unknown path too: nothing about the API is told to a foreign page.
    expect(
      (await raw(socketPath, 'GET', '/nope', { headers: { host: 'evil.example' } })).status,
    ).toBe(403);
    expect(
      (await raw(socketPath, 'GET', '/api/v1/status', { headers: { host: 'localhost' } })).status,
    ).toBe(200);
  });

  it('answers 405 with Allow for a known path, 404 for an unknown one', async () => {
    const wrong = await raw(socketPath, 'DELETE', '/api/v1/status');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(wrong.json).toMatchObject({ code: 'method-not-allowed' });
    const put = await raw(socketPath, 'GET', '/api/v1/devices/dev1');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('DELETE, PATCH');
    const events = await raw(socketPath, 'POST', '/api/v1/events');
    expect(events.headers.allow).toBe('GET');
    const unknown = await raw(socketPath, 'GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.json).toMatchObject({ code: 'not-found', status: 404 });
    expect((await raw(socketPath, 'GET', '/v1/status')).status).toBe(404);
  });

  it('refuses large, malformed and untyped bodies, and bodies or queries a route does not take', async () => {
    const big = await raw(
      socketPath,
      'PUT',
      '/api/v1/config/dns',
      json({ value: 'x'.repeat(70 * 1024) }),
    );
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ code: 'payload-too-large' });
    const malformed = await raw(socketPath, 'POST', '/api/v1/init', {
      headers: { 'content-type': 'application/json' },
      body: '{"endpoint":',
    });
    expect(malformed.json).toMatchObject({ status: 400, code: 'invalid-json' });
    const untyped = await raw(socketPath, 'POST', '/api/v1/init', { body: '{}' });
    expect(untyped.json).toMatchObject({ status: 415, code: 'unsupported-media-type' });
    const extra = await raw(socketPath, 'POST', '/api/v1/disconnect', json({ now: true }));
    expect(extra.json).toMatchObject({ status: 400, code: 'validation-failed' });
    const query = await raw(socketPath, 'GET', '/api/v1/status?verbose=1');
    expect(query.json).toMatchObject({
      status: 400,
      code: 'validation-failed',
      errors: [{ field: 'verbose' }],
    });
  });

  it('streams the current status at once, then each change and notice, with heartbeats', async () => {
    await setUp();
    const stream = await client.events();
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of stream) {
        seen.push(e.event === 'status' ? `status:${e.data.status}` : `notice:${e.data.code}`);
        if (seen.length === 5) break;
      }
    })();
    await waitFor(() => seen.length === 1, 'the first event');
    expect(seen).toEqual(['status:disconnected']);
    await client.connect({ body: {} });
    engine.notify({ code: 'obfuscation-on', message: 'UDP is blocked: the tunnel runs over TCP' });
    await client.disconnect();
    await done;
    expect(seen).toEqual([
      'status:disconnected',
      'status:connecting',
      'status:connected',
      'notice:obfuscation-on',
      'status:disconnecting',
    ]);
    await waitFor(() => engine.listenerCount === 0, 'the stream to let go of the engine');

    const heartbeat = await new Promise<string>((resolve, reject) => {
      const req = request(
        { socketPath, path: '/api/v1/events', headers: { host: 'ferry.local' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
            if (text.includes(': heartbeat')) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(heartbeat).toMatch(/^event: status\ndata: \{.*\}\n\n: heartbeat\n\n/);
  });

  it('ends event streams cleanly when the host shuts down', async () => {
    const stream = await client.events();
    const events: string[] = [];
    const ended = (async () => {
      for await (const e of stream) events.push(e.event);
      return 'ended';
    })();
    await waitFor(() => events.length === 1, 'the first event');
    await server!.close();
    server = undefined;
    await expect(ended).resolves.toBe('ended');
    await expect(stat(socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('aborts a connect when its client goes away', async () => {
    await setUp();
    const held = engine.holdConnect();
    const controller = new AbortController();
    const call = client.connect({ body: {}, signal: controller.signal }).catch((x: unknown) => x);
    await held.started;
    expect(engine.status().status).toBe('connecting');
    controller.abort();
    expect(await call).toMatchObject({ code: 'aborted' });
    await waitFor(() => engine.abortedConnects === 1, 'the engine to see the abort');
    expect(engine.status().status).toBe('disconnected');
  });

  it('makes the socket 0660 in a 0755 directory it creates', async () => {
    expect((await stat(socketPath)).mode & 0o777).toBe(0o660);
    expect((await stat(path.dirname(socketPath))).mode & 0o777).toBe(0o755);
    expect(server!.group).toBeNull();
  });

  it('gives the socket its group when the group exists, and keeps its own when not', async () => {
    await server!.close();
    // Group 0 exists everywhere; its name differs (root, wheel).
    const name = spawnSync('getent', ['group', '0'], { encoding: 'utf8' }).stdout.split(':')[0]!;
    server = await startLocalApiServer({ engine, socketPath, group: name });
    expect(server.group).toBe(name);
    expect((await stat(socketPath)).gid).toBe(0);
    await server.close();
    server = await startLocalApiServer({ engine, socketPath, group: 'no-such-group-ferry' });
    expect(server.group).toBeNull();
    expect((await stat(socketPath)).mode & 0o777).toBe(0o660);
  });

  it('replaces a stale socket and refuses to start beside a live host', async () => {
    await server!.close();
    // A host that died without cleaning up leaves its socket file behind.
    const died = spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.exit(0))`,
    ]);
    expect(died.status).toBe(0);
    expect((await stat(socketPath)).isSocket()).toBe(true);
    server = await startLocalApiServer({ engine, socketPath, group: null });
    expect((await client.status()).status).toBe('disconnected');

    const second = await startLocalApiServer({ engine, socketPath, group: null }).catch(
      (x: unknown) => x,
    );
    expect(second).toBeInstanceOf(SocketFileError);
    expect(second).toMatchObject({ code: 'engine-already-running' });
    // The live host is untouched.
    expect((await client.status()).status).toBe('disconnected');
  });

  it('refuses a path that is not a socket', async () => {
    const file = path.join(dir, 'not-a-socket');
    await writeFile(file, 'keep me');
    await expect(
      startLocalApiServer({ engine, socketPath: file, group: null }),
    ).rejects.toMatchObject({
      code: 'socket-unusable',
    });
    expect((await stat(file)).isFile()).toBe(true);
  });
});
