// The desktop app's main process: one instance, the engine (hosted here or attached to a
// running engine host), the IPC handlers, the window and the tray; at quit the engine port is
// closed (hosted: the engine shuts down, which disconnects cleanly). Bundled by
// scripts/build-electron.ts into dist/electron/main.cjs; the only module that imports Electron's
// values (the others take what they use as parameters, so tests run without Electron).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BrowserWindow,
  Menu,
  Tray,
  app,
  ipcMain,
  nativeImage,
  protocol,
  session,
  type MenuItemConstructorOptions,
  type NativeImage,
} from 'electron';
import { destination, pino } from 'pino';
import { FerryError } from '../../engine/errors.js';
import { probeSocket } from '../../engine/host/socket-file.js';
import { DEFAULT_STATE_DIR } from '../../engine/state-dir.js';
import { chooseEngine, openEngine, type EngineFacts } from './choose-engine.js';
import type { ElectronSeam } from './electron-seam.js';
import { attachEngine, hostEngine } from './engine-hosting.js';
import type { EnginePort } from './engine-port.js';
import { registerIpcHandlers, type IpcHandlers } from './ipc-handlers.js';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  isAppUrl,
  serveRendererFile,
} from './renderer-protocol.js';
import { mainLanguageOf, setMainLanguage } from './main-words.js';
import { startTray, type TrayController, type TrayItem, type TraySeam } from './tray.js';
import { trayIconPng, type TrayLook } from './tray-icons.js';
import {
  claimSingleInstance,
  createMainWindow,
  guardWebContents,
  hardenSession,
  showWindow,
} from './window.js';

/** dist/electron: the bundle, the preload and the icons; the renderer is beside it. */
const here = path.dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = path.join(here, '..', 'renderer');
const PRELOAD = path.join(here, 'preload.cjs');
const WINDOW_ICON = path.join(here, 'icon.png');
/** How long the engine gets to disconnect at quit before the app goes anyway. */
const SHUTDOWN_LIMIT_MS = 15_000;

const log = pino(
  { base: { component: 'electron-main' }, level: process.env.FERRY_LOG_LEVEL ?? 'info' },
  destination(2),
);

const facts: EngineFacts = {
  env: process.env,
  uid: () => process.getuid?.(),
  procStatus: () => readFile('/proc/self/status', 'utf8').catch(() => undefined),
  probeSocket,
};

/** Why hosting failed, when the error is one a person may read. */
function describeHostingFailure(error: unknown): string | undefined {
  if (error instanceof FerryError) return `${error.code}: ${error.message}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && (code === 'socket-unusable' || code === 'engine-already-running'))
    return error.message;
  return undefined;
}

function openPort(): Promise<EnginePort> {
  return chooseEngine(facts).then((choice) =>
    openEngine(choice, {
      host: async (socketPath) => {
        const { createEngine } = await import('../../engine/create-engine.js');
        return hostEngine({
          socketPath,
          stateDir: process.env.FERRY_STATE_DIR || DEFAULT_STATE_DIR,
          createEngine: (opts) => createEngine(opts),
          log,
        });
      },
      attach: (socketPath, notRunning) => attachEngine(socketPath, notRunning),
      describe: describeHostingFailure,
      log,
    }),
  );
}

/** The tray's image for a look: drawn at 32 px and at 64 px for screens at twice the scale. */
function trayImage(look: TrayLook): NativeImage {
  const image = nativeImage.createEmpty();
  image.addRepresentation({ scaleFactor: 1, buffer: trayIconPng(look, 32) });
  image.addRepresentation({ scaleFactor: 2, buffer: trayIconPng(look, 64) });
  return image;
}

function traySeamOf(tray: Tray): TraySeam {
  const menuItem = (item: TrayItem): MenuItemConstructorOptions =>
    item.type === 'separator'
      ? { type: 'separator' }
      : { id: item.id, label: item.label, enabled: item.enabled, click: item.click };
  return {
    setToolTip: (text) => tray.setToolTip(text),
    setMenu: (items) => tray.setContextMenu(Menu.buildFromTemplate(items.map(menuItem))),
    setLook: (look) => tray.setImage(trayImage(look)),
    destroy: () => tray.destroy(),
  };
}

let window: BrowserWindow | undefined;
let port: EnginePort | undefined;
let handlers: IpcHandlers | undefined;
let trayController: TrayController | undefined;
let quitting = false;
let stopped = false;
let stopping: Promise<void> | undefined;
/** The engine port while it is being opened (a quit meanwhile waits for it, then closes it). */
let opening: Promise<EnginePort> | undefined;

async function start(): Promise<void> {
  await app.whenReady();
  // Main's words in the app's locale until the tray reads the language setting.
  setMainLanguage(mainLanguageOf('auto', app.getLocale()));
  protocol.handle(APP_SCHEME, (request) => serveRendererFile(RENDERER_DIR, request.url));
  hardenSession(session.defaultSession);
  if (!existsSync(path.join(RENDERER_DIR, 'index.html')))
    // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
    log.warn({ dir: RENDERER_DIR }, 'the renderer is not built (dist/renderer/index.html)');

  opening = openPort();
  const opened = await opening;
  port = opened;
  // Quit while the engine was being reached: nothing else starts (stopAll closes the port).
  if (quitting) return;
  const seam: ElectronSeam = {
    ipcMain,
    mainContents: () => (window && !window.isDestroyed() ? window.webContents : undefined),
    isAppUrl,
  };
  handlers = registerIpcHandlers(seam, opened, log);
  window = createMainWindow(BrowserWindow, {
    preloadPath: PRELOAD,
    url: APP_ENTRY_URL,
    iconPath: existsSync(WINDOW_ICON) ? WINDOW_ICON : undefined,
    quitting: () => quitting,
  });
  const tray = new Tray(trayImage('disconnected'));
  tray.on('click', () => showWindow(window));
  trayController = startTray(
    traySeamOf(tray),
    opened,
    { showWindow: () => showWindow(window), quit: () => app.quit() },
    { locale: app.getLocale() },
  );
}

/** Everything main started, stopped in reverse; the engine port last (it may disconnect). */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    trayController?.dispose();
    handlers?.dispose();
    port ??= await opening?.catch(() => undefined);
    if (!port) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
        log.warn({ ms: SHUTDOWN_LIMIT_MS }, 'the engine did not stop in time; quitting anyway');
        resolve();
      }, SHUTDOWN_LIMIT_MS);
    });
    try {
      await Promise.race([port.close(), limit]);
    } catch (e) {
      log.error(
        { err: { name: (e as Error)?.name, message: (e as Error)?.message } },
        // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
        'engine close failed',
      );
    } finally {
      clearTimeout(timer);
    }
  })();
  return stopping;
}

// Before the app is ready: the checklist's sandbox for every renderer, and the app's scheme.
app.enableSandbox();
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

if (!claimSingleInstance(app, () => showWindow(window))) {
  app.quit();
} else {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
  app.on('before-quit', (event) => {
    quitting = true;
    if (stopped) return;
    event.preventDefault();
    void stopAll().finally(() => {
      stopped = true;
      app.quit();
    });
  });
  // Closing the window hides it; the app lives in the tray until Quit.
  app.on('window-all-closed', () => undefined);
  app.on('activate', () => showWindow(window));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => app.quit());
  start().catch((e: unknown) => {
    log.fatal(
      {
        err: {
          name: (e as Error)?.name,
          message: (e as Error)?.message,
          stack: (e as Error)?.stack,
        },
      },
      // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
      'start failed',
    );
    app.exit(1);
  });
}
