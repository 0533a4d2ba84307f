// The engine port both ways: hosted (the in-memory engine through the local API's handler
// table) and attached (a real local API server on a temporary unix socket, with the same
// engine behind it). The same calls give the same answers and the same error codes either way;
// the attached port says how to start an engine when none answers, and its event stream comes
// back by itself when the engine host restarts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  createLocalClient,
  exponentialBackoff,
  type FaceEvent,
  type FaceRouteId,
  type LocalClient,
} from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { startLocalApiServer, type LocalApiServer } from '../../engine/host/local-api-server.js';
import { createUnixFetch } from '../../engine/host/unix-fetch.js';
import { attachEngine } from './engine-hosting.js';
import { faceErrorOf } from './face-error.js';
import { attachedPort, hostedPort, unavailablePort, type EnginePort } from './engine-port.js';

async function waitFor(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a call ends in, as the IPC boundary sees it: the value, or the error's code and words. */
async function outcome(port: EnginePort, id: FaceRouteId, payload: object = {}) {
  try {
    return { ok: true, value: await port.call(id, payload) };
  } catch (e) {
    return { ok: false, error: faceErrorOf(e) };
  }
}

const BACKOFF = exponentialBackoff(20, 100);

describe('the engine port', () => {
  let dir: string;
  let socketPath: string;
  let server: LocalApiServer | undefined;
  const ports: EnginePort[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-port-'));
    socketPath = path.join(dir, 'engine.sock');
  });
  afterEach(async () => {
    await Promise.all(ports.splice(0).map((p) => p.close()));
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const serve = async (engine: FakeEngine) => {
    server = await startLocalApiServer({ engine, socketPath, group: null, heartbeatMs: 50 });
  };
  const attached = () => {
    const port = attachEngine(socketPath, undefined, BACKOFF);
    ports.push(port);
    return port;
  };

  /** Two engines in the same state, one behind each kind of port. */
  const both = async (): Promise<Record<'hosted' | 'attached', EnginePort>> => {
    const hosted = hostedPort(new FakeEngine());
    ports.push(hosted);
    await serve(new FakeEngine());
    return { hosted, attached: attached() };
  };

  it('gives the same answers and the same error codes hosted and attached', async () => {
    const ports = await both();
    const run = async (port: EnginePort) => [
      await outcome(port, 'connect', { body: {} }),
      await outcome(port, 'init', {
        body: { endpoint: 'https://ferry.example', protocol: 'WireGuard' },
      }),
      await outcome(port, 'connect', { body: {} }),
      (await outcome(port, 'createAccount', { body: {} })).ok,
      await outcome(port, 'connect', { body: { region: 'asia-east' } }),
      await outcome(port, 'connect', { body: { region: 'europe-west' } }),
      await outcome(port, 'connect', { body: { protocol: 'openvpn' } }),
      await outcome(port, 'setConfigKey', {
        params: { key: 'obfuscation' },
        body: { value: 'sometimes' },
      }),
      await outcome(port, 'removeRegionRule', { params: { name: 'nope' } }),
      await outcome(port, 'addRegionRule', { body: { area: 'ASIA', name: 'Near' } }),
      await outcome(port, 'removeRegionRule', { params: { name: 'near' } }),
      await outcome(port, 'disconnect'),
      await outcome(port, 'status'),
    ];
    const hosted = await run(ports.hosted);
    const attachedOutcomes = await run(ports.attached);
    expect(attachedOutcomes).toEqual(hosted);
    expect(hosted[0]).toMatchObject({ ok: false, error: { code: 'service-not-configured' } });
    expect(hosted[2]).toMatchObject({ ok: false, error: { code: 'not-signed-in' } });
    expect(hosted[4]).toMatchObject({
      ok: true,
      value: { status: 'connected', region: 'asia-east' },
    });
    expect(hosted[5]).toMatchObject({ ok: false, error: { code: 'region-not-in-plan' } });
    expect(hosted[6]).toMatchObject({
      ok: false,
      error: {
        code: 'validation-failed',
        errors: [{ field: 'protocol', allowed: ['wireguard', 'ferry'] }],
      },
    });
    expect(hosted[7]).toMatchObject({ ok: false, error: { code: 'config-invalid' } });
    expect(hosted[8]).toMatchObject({ ok: false, error: { code: 'rule-not-found' } });
    expect(hosted[9]).toMatchObject({ ok: true, value: { name: 'near', area: 'asia' } });
    expect(hosted[10]).toEqual({ ok: true, value: undefined });
    expect(hosted[12]).toMatchObject({
      ok: true,
      value: { status: 'disconnected', signed_in: true },
    });
  });

  it('hosted: parses each part before the engine is called', async () => {
    const engine = new FakeEngine();
    const port = hostedPort(engine);
    ports.push(port);
    const init = vi.spyOn(engine, 'init');
    await expect(port.call('init', { body: { endpoint: 'gopher://x' } })).rejects.toMatchObject({
      code: 'validation-failed',
      errors: [{ field: 'endpoint' }],
    });
    await expect(port.call('status', { query: { verbose: '1' } })).rejects.toMatchObject({
      code: 'validation-failed',
    });
    expect(init).not.toHaveBeenCalled();
    // The parsed values reach the engine (the protocol's letter case, the rule name's).
    await port.call('init', { body: { endpoint: 'https://ferry.example', protocol: 'WireGuard' } });
    expect(init).toHaveBeenCalledWith({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
  });

  it('hosted: the current status, then the engine’s events; the engine shut down at close', async () => {
    const engine = new FakeEngine();
    const afterShutdown = vi.fn(async () => undefined);
    const port = hostedPort(engine, { afterShutdown });
    const seen: FaceEvent[] = [];
    const before = engine.status();
    const unsubscribe = port.subscribe((e) => seen.push(e));
    // The current status first, as the local API's event stream sends it.
    await Promise.resolve();
    engine.notify({ code: 'key-rotated', message: 'the device key was rotated' });
    expect(seen).toEqual([
      { type: 'status', status: before },
      { type: 'notice', notice: { code: 'key-rotated', message: 'the device key was rotated' } },
    ]);
    unsubscribe();
    expect(engine.listenerCount).toBe(0);

    await Promise.all([port.close(), port.close()]);
    expect(engine.shutdowns).toBe(1);
    expect(afterShutdown).toHaveBeenCalledTimes(1);
    await expect(port.call('status', {})).rejects.toMatchObject({ code: 'engine-unavailable' });
  });

  it('hosted: a connect under way is aborted at close', async () => {
    const engine = new FakeEngine();
    const port = hostedPort(engine);
    await port.call('init', { body: { endpoint: 'https://ferry.example' } });
    await port.call('createAccount', { body: {} });
    const held = engine.holdConnect();
    const connecting = port.call('connect', { body: {} }).catch((e: unknown) => e);
    await held.started;
    await port.close();
    await connecting;
    expect(engine.abortedConnects).toBe(1);
  });

  it('attached: says how to start the engine when nothing answers on the socket', async () => {
    const port = attached();
    const e = await port.call('status', {}).catch((x: unknown) => x);
    expect(faceErrorOf(e)).toEqual({
      code: 'engine-unavailable',
      message: `The Ferry engine is not running. Start it with: sudo netcli daemon --socket ${socketPath}.`,
    });
    // Once an engine host starts there, the same port reaches it.
    await serve(new FakeEngine());
    expect(await port.call('status', {})).toMatchObject({ status: 'disconnected' });
  });

  it('attached: tells a user the socket refuses how to be let in', async () => {
    const refused = new ApiError({
      code: 'unreachable',
      detail: 'no answer from the server (EACCES)',
      route: 'GET /status',
      cause: new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect EACCES'), { code: 'EACCES' }),
      }),
    });
    const client = { status: async () => Promise.reject(refused) } as unknown as LocalClient;
    const port = attachedPort(client, { unavailable: (reason) => `reason: ${reason}` });
    await expect(port.call('status', {})).rejects.toMatchObject({
      code: 'engine-unavailable',
      message: 'reason: permission-denied',
    });
  });

  it('attached: a control plane the engine could not reach keeps its code (not engine-unavailable)', async () => {
    const engine = new FakeEngine();
    engine.account = async () => {
      throw new ApiError({ code: 'unreachable', detail: 'no answer', route: 'GET /account' });
    };
    await serve(engine);
    const e = await attached()
      .call('account', {})
      .catch((x: unknown) => x);
    expect(faceErrorOf(e)).toEqual({ code: 'unreachable', message: 'no answer' });
  });

  it('attached: streams the events, and picks them up again when the engine host restarts', async () => {
    const engine = new FakeEngine();
    await serve(engine);
    const port = attached();
    const seen: string[] = [];
    port.subscribe((e) =>
      seen.push(e.type === 'status' ? `status:${e.status.status}` : `notice:${e.notice.code}`),
    );
    await waitFor(() => seen.length === 1, 'the first status');
    engine.notify({ code: 'obfuscation-on', message: 'UDP is blocked: the tunnel runs over TCP' });
    await waitFor(() => seen.length === 2, 'the notice');
    expect(seen).toEqual(['status:disconnected', 'notice:obfuscation-on']);

    // The host goes away (a restart of the service) and comes back on the same socket.
    await server!.close();
    server = undefined;
    await new Promise((r) => setTimeout(r, 100));
    const restarted = new FakeEngine();
    await serve(restarted);
    await waitFor(() => seen.length === 3, 'the status from the restarted host');
    expect(seen[2]).toBe('status:disconnected');
    restarted.notify({ code: 'key-rotated', message: 'the device key was rotated' });
    await waitFor(() => seen.length === 4, 'a notice from the restarted host');
    expect(seen[3]).toBe('notice:key-rotated');
  });

  it('attached: lets go of the event stream when the last listener goes, and at close', async () => {
    const engine = new FakeEngine();
    await serve(engine);
    const port = attached();
    const unsubscribe = port.subscribe(() => undefined);
    await waitFor(() => engine.listenerCount === 1, 'the stream to subscribe');
    unsubscribe();
    await waitFor(() => engine.listenerCount === 0, 'the stream to let go');

    port.subscribe(() => undefined);
    await waitFor(() => engine.listenerCount === 1, 'a new stream');
    await port.close();
    await waitFor(() => engine.listenerCount === 0, 'the stream to close');
    await expect(port.call('status', {})).rejects.toMatchObject({ code: 'engine-unavailable' });
  });

  it('attached: a call of a face route goes through the typed client with its payload', async () => {
    const engine = new FakeEngine();
    await serve(engine);
    const fetch = createUnixFetch(socketPath);
    const client = createLocalClient({ fetch });
    const port = attachedPort(client, {
      unavailable: () => 'none',
      closeTransport: () => fetch.close(),
    });
    ports.push(port);
    await port.call('init', { body: { endpoint: 'https://ferry.example' } });
    await port.call('setConfigKey', { params: { key: 'dns' }, body: { value: '9.9.9.9' } });
    expect(engine.config.dns).toBe('9.9.9.9');
  });

  it('unavailable: every call says why, and there are no events', async () => {
    const port = unavailablePort('The app could not start the Ferry engine itself.');
    await expect(port.call('connect', { body: {} })).rejects.toMatchObject({
      code: 'engine-unavailable',
      message: 'The app could not start the Ferry engine itself.',
    });
    const unsubscribe = port.subscribe(() => undefined);
    unsubscribe();
    await port.close();
  });
});
