// main's IPC handlers through a fake Electron seam, with the in-memory engine hosted behind
// them: the handler table from the schema, payloads refused before the engine is called, error
// codes kept across the boundary (the engine's, the control plane's, a bug's as `internal`),
// events forwarded and malformed ones dropped, and calls from anything but the app's window
// refused.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  FACE_ROUTE_IDS,
  ipcChannel,
  type FaceEvent,
  type FaceResult,
} from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { FerryError } from '../../engine/errors.js';
import { fakeSeam, fromApp, type FakeSeam } from './electron-seam.fake.js';
import { INTERNAL_MESSAGE } from './face-error.js';
import { hostedPort, type EnginePort } from './engine-port.js';
import { registerIpcHandlers, type IpcHandlers } from './ipc-handlers.js';

function quietLog() {
  return { warn: vi.fn(), error: vi.fn() };
}

describe('the IPC handlers', () => {
  let engine: FakeEngine;
  let seam: FakeSeam;
  let port: EnginePort;
  let log: ReturnType<typeof quietLog>;
  let handlers: IpcHandlers;

  const call = (id: string, payload?: unknown, event = fromApp()) =>
    seam.ipcMain.invoke(`ferry:${id}`, event, payload) as Promise<FaceResult<any>>;

  const setUp = async () => {
    await call('init', { body: { endpoint: 'https://ferry.example', protocol: 'wireguard' } });
    return call('createAccount', { body: {} });
  };

  beforeEach(() => {
    engine = new FakeEngine();
    seam = fakeSeam();
    port = hostedPort(engine);
    log = quietLog();
    handlers = registerIpcHandlers(seam, port, log);
  });
  afterEach(async () => {
    handlers.dispose();
    await port.close();
  });

  it('handles exactly the face calls of the schema, and lets go of them at dispose', () => {
    expect([...seam.ipcMain.handlers.keys()].sort()).toEqual(FACE_ROUTE_IDS.map(ipcChannel).sort());
    // The socket-only routes are not offered to the window.
    expect(seam.ipcMain.handlers.has('ferry:events')).toBe(false);
    expect(seam.ipcMain.handlers.has('ferry:openGui')).toBe(false);
    handlers.dispose();
    expect(seam.ipcMain.handlers.size).toBe(0);
  });

  it('answers a call with {ok: true, value}, and a route without an answer with no value', async () => {
    const status = await call('status', {});
    expect(status).toMatchObject({ ok: true, value: { status: 'disconnected', signed_in: false } });
    // No payload at all is an empty one.
    expect(await call('status')).toMatchObject({ ok: true });

    const session = await setUp();
    expect(session).toMatchObject({ ok: true, value: { device: { id: expect.any(String) } } });
    const connected = await call('connect', {
      body: { region: 'asia-east', protocol: 'WireGuard' },
    });
    expect(connected).toMatchObject({
      ok: true,
      value: { status: 'connected', region: 'asia-east', protocol: 'wireguard', latency: '12ms' },
    });
    await call('addRegionRule', { body: { area: 'asia', name: 'near' } });
    expect(await call('removeRegionRule', { params: { name: 'near' } })).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it('refuses a bad payload with the field errors, without calling the engine', async () => {
    await setUp();
    const connect = vi.spyOn(engine, 'connect');
    const bad = await call('connect', { body: { protocol: 'openvpn', colour: 'blue' } });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.code).toBe('validation-failed');
    const byField = Object.fromEntries((bad.error.errors ?? []).map((e) => [e.field, e]));
    expect(byField.protocol?.allowed).toEqual(['wireguard', 'ferry']);
    expect(byField.colour?.message).toMatch(/unknown field/);
    // The value sent is never echoed back.
    expect(JSON.stringify(bad)).not.toContain('openvpn');

    const missing = await call('setConfigKey', { params: { key: 'dns' } });
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'validation-failed', errors: [{ field: 'value' }] },
    });
    const notAnObject = await call('status', 'please');
    expect(notAnObject).toMatchObject({ ok: false, error: { code: 'validation-failed' } });
    const extra = await call('status', { verbose: true });
    expect(extra).toMatchObject({
      ok: false,
      error: {
        code: 'validation-failed',
        errors: [{ field: 'verbose', allowed: ['params', 'query', 'body'] }],
      },
    });
    const paramsWhereNone = await call('disconnect', { params: { now: true } });
    expect(paramsWhereNone).toMatchObject({ ok: false, error: { code: 'validation-failed' } });
    expect(connect).not.toHaveBeenCalled();
    expect(engine.status().status).toBe('disconnected');
  });

  it('keeps the engine’s error codes and messages', async () => {
    expect(await call('connect', { body: {} })).toEqual({
      ok: false,
      error: { code: 'service-not-configured', message: 'no control plane is configured' },
    });
    await call('init', { body: { endpoint: 'https://ferry.example' } });
    expect(await call('connect', { body: {} })).toEqual({
      ok: false,
      error: { code: 'not-signed-in', message: 'this device is not signed in' },
    });
    // The engine's refusal of a value keeps its field errors.
    const set = await call('setConfigKey', {
      params: { key: 'obfuscation' },
      body: { value: 'sometimes' },
    });
    expect(set).toMatchObject({
      ok: false,
      error: {
        code: 'config-invalid',
        errors: [{ field: 'obfuscation', allowed: ['auto', 'on', 'off', 'tcp', 'tls'] }],
      },
    });
  });

  it('keeps the control plane’s codes and messages (device-limit, region-not-in-plan)', async () => {
    const session = await setUp();
    if (!session.ok) throw new Error('no account');
    for (let i = 1; i < 5; i++)
      await engine.login({ account_number: session.value.account_number });
    const full = await call('login', { body: { account_number: session.value.account_number } });
    expect(full.ok).toBe(false);
    if (full.ok) return;
    expect(full.error.code).toBe('device-limit');
    // The control plane's own words, as the engine passed them on.
    const thrown: unknown = await engine
      .login({ account_number: session.value.account_number })
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(full.error.message).toBe((thrown as ApiError).detail);

    const notInPlan = await call('connect', { body: { region: 'europe-west' } });
    expect(notInPlan).toEqual({
      ok: false,
      error: { code: 'region-not-in-plan', message: 'your plan does not include europe-west' },
    });
  });

  it('answers a bug `internal` without its text, and logs it', async () => {
    engine.getConfig = async () => {
      throw new TypeError('secret detail 10.1.2.3');
    };
    const bug = await call('getConfig', {});
    expect(bug).toEqual({ ok: false, error: { code: 'internal', message: INTERNAL_MESSAGE } });
    expect(JSON.stringify(bug)).not.toContain('10.1.2.3');
    expect(log.error).toHaveBeenCalledTimes(1);

    // An engine code this build does not know is still the engine's code, not a bug.
    engine.listDevices = async () => {
      throw new FerryError('from-a-newer-engine' as never, 'something new');
    };
    expect(await call('listDevices', {})).toEqual({
      ok: false,
      error: { code: 'from-a-newer-engine', message: 'something new' },
    });
  });

  it('answers `internal` when the engine’s answer does not match the contract', async () => {
    engine.status = () => ({ status: 'sideways' }) as never;
    const off = await call('status', {});
    expect(off).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(log.error).toHaveBeenCalledTimes(1);
  });

  it('refuses calls from anything but the app’s own window, without calling the engine', async () => {
    const status = vi.spyOn(engine, 'status');
    const refused = [
      // another window (webContents) of the app
      fromApp(8),
      // a page that is not the app's
      fromApp(7, 'https://evil.example/index.html'),
      fromApp(7, 'file:///work/main/dist/renderer/index.html'),
      fromApp(7, 'ferry-app://other/index.html'),
      // a frame inside the app's page
      { sender: { id: 7 }, senderFrame: { url: 'ferry-app://app/index.html', parent: {} } },
      // a frame that navigated away or is gone
      { sender: { id: 7 }, senderFrame: null },
    ];
    for (const event of refused) {
      expect(await call('status', {}, event)).toEqual({
        ok: false,
        error: { code: 'forbidden', message: expect.any(String) },
      });
    }
    seam.window!.destroyed = true;
    expect(await call('status', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    seam.window = undefined;
    expect(await call('status', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(status).not.toHaveBeenCalled();
    // A page of the app's own (an in-app route) is the app.
    seam.window = fakeSeam().window;
    expect(
      await call('status', {}, fromApp(7, 'ferry-app://app/index.html#/settings')),
    ).toMatchObject({
      ok: true,
    });
  });

  it('pushes the engine’s events to the window on one channel', async () => {
    await setUp();
    seam.window!.sent.length = 0;
    await call('connect', { body: {} });
    engine.notify({ code: 'obfuscation-on', message: 'UDP is blocked: the tunnel runs over TCP' });
    const events = seam.window!.sent.map((s) => {
      expect(s.channel).toBe('ferry:event');
      const e = s.args[0] as FaceEvent;
      return e.type === 'status' ? `status:${e.status.status}` : `notice:${e.notice.code}`;
    });
    expect(events).toEqual(['status:connecting', 'status:connected', 'notice:obfuscation-on']);
    // No window: nothing is sent, and nothing breaks.
    seam.window!.destroyed = true;
    await call('disconnect', {}, fromApp());
    expect(seam.window!.sent).toHaveLength(3);
  });

  it('drops events outside the contract, and stops forwarding at dispose', async () => {
    handlers.dispose();
    seam.window!.sent.length = 0;
    let emit: (e: unknown) => void = () => undefined;
    const fakePort: EnginePort = {
      mode: 'hosted',
      call: async () => undefined,
      subscribe: (listener) => {
        emit = listener as (e: unknown) => void;
        return () => {
          emit = () => undefined;
        };
      },
      close: async () => undefined,
    };
    handlers = registerIpcHandlers(seam, fakePort, log);
    emit({ type: 'status', status: { status: 'sideways' } });
    emit({ type: 'gossip', text: 'hello' });
    emit({
      type: 'notice',
      notice: { code: 'key-rotated', message: 'the device key was rotated' },
    });
    expect(seam.window!.sent).toEqual([
      {
        channel: 'ferry:event',
        args: [
          {
            type: 'notice',
            notice: { code: 'key-rotated', message: 'the device key was rotated' },
          },
        ],
      },
    ]);
    expect(log.warn).toHaveBeenCalledTimes(2);
    handlers.dispose();
    emit({ type: 'notice', notice: { code: 'late', message: 'after dispose' } });
    expect(seam.window!.sent).toHaveLength(1);
  });
});
