// The main window and Electron's security checklist: an isolated, sandboxed renderer without
// Node, served from the app's own scheme under a strict CSP; no navigation, no new windows, no
// permissions, no remote content; one instance of the app (a second one shows the first).
import type {
  App,
  BrowserWindow,
  BrowserWindowConstructorOptions,
  Session,
  WebContents,
} from 'electron';
import { withContentSecurityPolicy } from './content-security.js';
import { mainWords } from './main-words.js';
import { APP_SCHEME } from './renderer-protocol.js';

export interface MainWindowOptions {
  preloadPath: string;
  iconPath?: string | undefined;
}

/** The window's options; webPreferences are the checklist's, each set even where a default. */
export function mainWindowOptions(options: MainWindowOptions): BrowserWindowConstructorOptions {
  return {
    width: 420,
    height: 720,
    minWidth: 360,
    minHeight: 560,
    title: mainWords()('home.window.title'),
    show: false,
    autoHideMenuBar: true,
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  };
}

/** Schemes a page of the app may load anything from: its own, and inline data. */
const ALLOWED_REQUEST_SCHEMES = new Set([`${APP_SCHEME}:`, 'data:', 'blob:', 'devtools:']);

/** Whether the session lets a request out (nothing remote: the engine is reached over IPC). */
export function isAllowedRequest(url: string): boolean {
  try {
    return ALLOWED_REQUEST_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** CSP on every answer, nothing remote, every permission refused. */
export function hardenSession(
  session: Pick<
    Session,
    'webRequest' | 'setPermissionRequestHandler' | 'setPermissionCheckHandler'
  >,
): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !isAllowedRequest(details.url) });
  });
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * Every webContents of the app (app 'web-contents-created'): it never navigates (the renderer
 * is one page; its routes are in-page), opens no windows and attaches no webviews.
 */
export function guardWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * Takes the single-instance lock; false when another instance holds it (this one should quit).
 * A second start shows the first one's window.
 */
export function claimSingleInstance(
  app: Pick<App, 'requestSingleInstanceLock' | 'on'>,
  showWindow: () => void,
): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', () => showWindow());
  return true;
}

/** Brings the window to the front, restoring it when minimised or hidden to the tray. */
export function showWindow(window: BrowserWindow | undefined): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

export interface CreateWindowOptions extends MainWindowOptions {
  /** The app's entry page (renderer-protocol.ts APP_ENTRY_URL). */
  url: string;
  /** Whether the app is quitting: until then, closing the window hides it to the tray. */
  quitting: () => boolean;
}

/** The main window, shown once its page is ready; closing it hides it while the app runs. */
export function createMainWindow(
  BrowserWindowClass: typeof BrowserWindow,
  options: CreateWindowOptions,
): BrowserWindow {
  const window = new BrowserWindowClass(mainWindowOptions(options));
  window.once('ready-to-show', () => window.show());
  window.on('close', (event) => {
    if (options.quitting()) return;
    event.preventDefault();
    window.hide();
  });
  void window.loadURL(options.url);
  return window;
}
