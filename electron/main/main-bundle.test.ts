// The built main process (dist/electron/main.cjs, as scripts/build-electron.ts bundles it) run
// under Node with a fake `electron` module: it must load, attach to the engine host on the
// socket (a real local API server with the in-memory engine), register the IPC handlers, open
// the window with the checklist's settings on the app's scheme, forward events, answer calls
// (and refuse a foreign sender), and close the engine port when the app quits.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACE_ROUTE_IDS, ipcChannel } from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { startLocalApiServer, type LocalApiServer } from '../../engine/host/local-api-server.js';
import { buildElectron } from '../../scripts/build-electron.js';

/** The fake Electron: records what main asks of it, then plays the renderer's part. */
const FAKE_ELECTRON = String.raw`
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const report = (o) => fs.writeSync(1, JSON.stringify(o) + '\n');
const appEvents = new EventEmitter();
let resolveReady;
const ready = new Promise((r) => (resolveReady = r));
setImmediate(() => resolveReady());
const handlers = new Map();
let serve;
const app = {
  enableSandbox: () => report({ type: 'sandbox' }),
  requestSingleInstanceLock: () => true,
  on: (name, l) => (appEvents.on(name, l), app),
  whenReady: () => ready,
  getLocale: () => 'en-US',
  quit() {
    const event = { prevented: false, preventDefault() { this.prevented = true; } };
    appEvents.emit('before-quit', event);
    if (!event.prevented) { report({ type: 'quit' }); setImmediate(() => process.exit(0)); }
  },
  exit(code) { report({ type: 'exit', code }); process.exit(code); },
};
const protocol = {
  registerSchemesAsPrivileged: (schemes) => report({ type: 'schemes', schemes }),
  handle: (scheme, handler) => { report({ type: 'protocol', scheme }); serve = handler; },
};
const hooks = [];
const session = { defaultSession: {
  webRequest: { onHeadersReceived: () => hooks.push('headers'), onBeforeRequest: () => hooks.push('before') },
  setPermissionRequestHandler: () => hooks.push('permission'),
  setPermissionCheckHandler: () => hooks.push('check'),
} };
const ipcMain = { handle: (ch, l) => handlers.set(ch, l), removeHandler: (ch) => handlers.delete(ch) };
class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
    const guards = [];
    this.webContents = {
      id: 1,
      isDestroyed: () => false,
      send: (channel, ...args) => report({ type: 'sent', channel, args }),
      on: (name) => guards.push(name),
      setWindowOpenHandler: () => guards.push('window-open'),
    };
    appEvents.emit('web-contents-created', {}, this.webContents);
    this.guards = guards;
  }
  loadURL(url) {
    this.url = url;
    report({ type: 'window', options: this.options, url, guards: this.guards, hooks });
    setImmediate(() => { this.emit('ready-to-show'); drive(this).catch((e) => report({ type: 'error', message: String(e) })); });
    return Promise.resolve();
  }
  isDestroyed() { return false; } show() {} hide() {} focus() {} isMinimized() { return false; } restore() {}
}
class Tray {
  constructor(image) { report({ type: 'tray-image', sizes: image.sizes }); }
  setToolTip(text) { report({ type: 'tooltip', text }); }
  setImage(image) { report({ type: 'tray-image', sizes: image.sizes }); }
  setContextMenu() {} on() {} destroy() {}
}
const Menu = { buildFromTemplate: (t) => t };
const nativeImage = {
  createFromPath: (p) => ({ p }),
  createEmpty: () => {
    const image = { sizes: [] };
    image.addRepresentation = ({ scaleFactor, buffer }) =>
      image.sizes.push([scaleFactor, buffer.readUInt32BE(16), buffer.subarray(1, 4).toString()]);
    return image;
  },
};
async function drive(win) {
  const trusted = { sender: { id: 1 }, senderFrame: { url: win.url, parent: null } };
  report({ type: 'channels', channels: [...handlers.keys()].sort() });
  report({ type: 'status', result: await handlers.get('ferry:status')(trusted, {}) });
  report({ type: 'bad', result: await handlers.get('ferry:connect')(trusted, { body: { protocol: 'openvpn' } }) });
  const foreign = { sender: { id: 2 }, senderFrame: { url: win.url, parent: null } };
  report({ type: 'foreign', result: await handlers.get('ferry:status')(foreign, {}) });
  const page = await serve({ url: win.url });
  report({ type: 'served', status: page.status, csp: page.headers.get('content-security-policy'), body: await page.text() });
  setTimeout(() => app.quit(), 500);
}
module.exports = { app, protocol, session, ipcMain, BrowserWindow, Tray, Menu, nativeImage };
`;

const HOOK = String.raw`
const Module = require('node:module');
const fake = require(process.env.FAKE_ELECTRON);
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'electron' ? fake : load.call(this, request, ...rest);
};
`;

interface Report {
  type: string;
  [k: string]: any;
}

describe('the bundled main process', () => {
  let dir: string;
  let server: LocalApiServer;
  let engine: FakeEngine;
  let reports: Report[];
  let exitCode: number | null;
  let stderr = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-main-'));
    const outDir = path.join(dir, 'electron');
    await buildElectron({ outDir, netcli: false });
    await mkdir(path.join(dir, 'renderer'));
    await writeFile(
      path.join(dir, 'renderer', 'index.html'),
      '<!doctype html><title>Ferry</title>',
    );
    await writeFile(path.join(dir, 'fake-electron.cjs'), FAKE_ELECTRON);
    await writeFile(path.join(dir, 'hook.cjs'), HOOK);
    const socketPath = path.join(dir, 'engine.sock');
    engine = new FakeEngine();
    // A live engine host: main attaches to it (and never hosts an engine of its own here).
    server = await startLocalApiServer({ engine, socketPath, group: null, heartbeatMs: 50 });

    const child = spawn(
      process.execPath,
      ['--require', path.join(dir, 'hook.cjs'), path.join(outDir, 'main.cjs')],
      {
        env: {
          PATH: process.env.PATH,
          FAKE_ELECTRON: path.join(dir, 'fake-electron.cjs'),
          FERRY_SOCKET: socketPath,
          FERRY_STATE_DIR: path.join(dir, 'state'),
          FERRY_LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    exitCode = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    reports = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Report);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const one = (type: string) => {
    const r = reports.find((x) => x.type === type);
    if (!r)
      throw new Error(`no ${type} report; stderr:\n${stderr}\nreports: ${JSON.stringify(reports)}`);
    return r;
  };

  it('starts, attaches to the engine host and quits cleanly', () => {
    expect(reports.filter((r) => r.type === 'error')).toEqual([]);
    expect(exitCode).toBe(0);
    one('quit');
    expect(stderr).toContain('"mode":"attached"');
    expect(stderr).not.toMatch(/"level":(50|60)/);
  });

  it('sandboxes every renderer and serves the app on its own secure scheme', () => {
    one('sandbox');
    expect(one('schemes').schemes).toEqual([
      { scheme: 'ferry-app', privileges: { standard: true, secure: true } },
    ]);
    expect(one('protocol').scheme).toBe('ferry-app');
    expect(one('served')).toMatchObject({
      status: 200,
      body: '<!doctype html><title>Ferry</title>',
    });
    expect(one('served').csp).toContain("script-src 'self'");
  });

  it('opens the window with the checklist’s settings, guarded, on the app’s page', () => {
    const window = one('window');
    expect(window.url).toBe('ferry-app://app/index.html');
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: path.join(dir, 'electron', 'preload.cjs'),
    });
    expect(existsSync(window.options.webPreferences.preload)).toBe(true);
    expect(window.guards).toEqual(
      expect.arrayContaining([
        'will-navigate',
        'will-redirect',
        'will-attach-webview',
        'window-open',
      ]),
    );
    expect(window.hooks).toEqual(
      expect.arrayContaining(['headers', 'before', 'permission', 'check']),
    );
  });

  it('answers the window’s calls through the engine host, and refuses a foreign sender', () => {
    expect(one('channels').channels).toEqual(FACE_ROUTE_IDS.map(ipcChannel).sort());
    expect(one('status').result).toMatchObject({ ok: true, value: { status: 'disconnected' } });
    expect(one('bad').result).toMatchObject({
      ok: false,
      error: { code: 'validation-failed', errors: [{ field: 'protocol' }] },
    });
    expect(one('foreign').result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('forwards the engine’s events to the window and shows the state in the tray', () => {
    const sent = reports.filter((r) => r.type === 'sent');
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]).toMatchObject({
      channel: 'ferry:event',
      args: [{ type: 'status', status: { status: 'disconnected' } }],
    });
    expect(reports.filter((r) => r.type === 'tooltip').at(-1)?.text).toBe('Ferry: Disconnected');
    // The tray's icon drawn for the state (disconnected), at 32 px and 64 px, as PNGs.
    expect(reports.filter((r) => r.type === 'tray-image')[0]?.sizes).toEqual([
      [1, 32, 'PNG'],
      [2, 64, 'PNG'],
    ]);
  });

  it('let go of the engine host’s event stream when it quit', () => {
    expect(engine.listenerCount).toBe(0);
  });
});
