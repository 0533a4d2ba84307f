// The window's security settings with fake Electron objects: the checklist's webPreferences, the
// CSP on every answer, nothing remote, no permissions, no navigation or new windows, one
// instance; and the app's scheme, which serves only the renderer's own files.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { App, Session, WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY, withContentSecurityPolicy } from './content-security.js';
import {
  APP_ENTRY_URL,
  isAppUrl,
  rendererFileFor,
  serveRendererFile,
} from './renderer-protocol.js';
import {
  claimSingleInstance,
  guardWebContents,
  hardenSession,
  isAllowedRequest,
  mainWindowOptions,
} from './window.js';

type Listener = (...args: any[]) => void;

describe('the window', () => {
  it('has the security checklist’s webPreferences and the preload', () => {
    const prefs = mainWindowOptions({
      preloadPath: '/app/dist/electron/preload.cjs',
    }).webPreferences;
    expect(prefs).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
  });

  it('has a strict CSP: own scripts and styles, no eval, nothing remote, no framing', () => {
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-(inline|eval)|\*|https?:/);
  });

  it('puts the CSP on every answer, in place of one the answer brought', () => {
    const headers = withContentSecurityPolicy({
      'content-type': ['text/html'],
      'Content-Security-Policy': ["default-src *; script-src 'unsafe-eval'"],
      'content-security-policy': ['default-src *'],
    });
    expect(headers).toEqual({
      'content-type': ['text/html'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
    expect(withContentSecurityPolicy(undefined)).toEqual({
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
  });

  it('hardens the session: the CSP hook, nothing remote, every permission refused', () => {
    let onHeaders: Listener | undefined;
    let onBefore: Listener | undefined;
    let onPermission: Listener | undefined;
    let onCheck: ((...a: unknown[]) => boolean) | undefined;
    const session = {
      webRequest: {
        onHeadersReceived: (l: Listener) => (onHeaders = l),
        onBeforeRequest: (l: Listener) => (onBefore = l),
      },
      setPermissionRequestHandler: (l: Listener) => (onPermission = l),
      setPermissionCheckHandler: (l: (...a: unknown[]) => boolean) => (onCheck = l),
    } as unknown as Session;
    hardenSession(session);

    const headersDone = vi.fn();
    onHeaders!({ url: APP_ENTRY_URL, responseHeaders: { 'x-a': ['1'] } }, headersDone);
    expect(headersDone).toHaveBeenCalledWith({
      responseHeaders: { 'x-a': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });

    for (const [url, cancel] of [
      ['https://tracker.example/pixel.gif', true],
      ['http://127.0.0.1:8080/api/v1/status', true],
      ['ws://evil.example/', true],
      ['file:///etc/passwd', true],
      [`${APP_ENTRY_URL}`, false],
      ['ferry-app://app/assets/index.js', false],
      ['data:image/png;base64,AAAA', false],
    ] as const) {
      const done = vi.fn();
      onBefore!({ url }, done);
      expect(done, url).toHaveBeenCalledWith({ cancel });
    }
    expect(isAllowedRequest('not a url')).toBe(false);

    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal']) {
      const answer = vi.fn();
      onPermission!({}, permission, answer, {});
      expect(answer).toHaveBeenCalledWith(false);
      expect(onCheck!(null, permission, APP_ENTRY_URL, {})).toBe(false);
    }
  });

  it('guards every webContents: no navigation, no redirects, no webviews, no new windows', () => {
    const listeners = new Map<string, Listener>();
    let openHandler: ((d: { url: string }) => unknown) | undefined;
    const contents = {
      on: (name: string, l: Listener) => listeners.set(name, l),
      setWindowOpenHandler: (h: (d: { url: string }) => unknown) => (openHandler = h),
    } as unknown as WebContents;
    guardWebContents(contents);
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const event = { preventDefault: vi.fn() };
      listeners.get(name)!(event, 'https://evil.example/');
      expect(event.preventDefault, name).toHaveBeenCalled();
    }
    expect(openHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
  });

  it('keeps one instance: a second start shows the first one’s window', () => {
    const show = vi.fn();
    const handlers = new Map<string, Listener>();
    const app = (lock: boolean) =>
      ({
        requestSingleInstanceLock: () => lock,
        on: (name: string, l: Listener) => handlers.set(name, l),
      }) as unknown as App;
    expect(claimSingleInstance(app(false), show)).toBe(false);
    expect(handlers.size).toBe(0);
    expect(claimSingleInstance(app(true), show)).toBe(true);
    handlers.get('second-instance')!({}, ['ferry'], '/');
    expect(show).toHaveBeenCalledTimes(1);
  });
});

describe('the app’s scheme', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ferry-renderer-'));
    await mkdir(path.join(root, 'assets'));
    await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Ferry</title>');
    await writeFile(path.join(root, 'assets', 'index.js'), 'console.log(1)');
    await writeFile(path.join(path.dirname(root), 'ferry-secret.txt'), 'secret');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(path.join(path.dirname(root), 'ferry-secret.txt'), { force: true });
  });

  it('knows its own URLs from any other', () => {
    expect(isAppUrl(APP_ENTRY_URL)).toBe(true);
    expect(isAppUrl('ferry-app://app/assets/index.js?x=1#y')).toBe(true);
    for (const url of [
      'ferry-app://other/index.html',
      'ferry-app://user:pw@app/index.html',
      'https://app/index.html',
      'file:///app/index.html',
      'about:blank',
      'nonsense',
    ])
      expect(isAppUrl(url), url).toBe(false);
  });

  it('maps URLs to files inside the renderer only', () => {
    expect(rendererFileFor(root, 'ferry-app://app/')).toBe(path.join(root, 'index.html'));
    expect(rendererFileFor(root, 'ferry-app://app/assets/index.js')).toBe(
      path.join(root, 'assets', 'index.js'),
    );
    for (const url of [
      'ferry-app://app/../ferry-secret.txt',
      'ferry-app://app/%2e%2e/ferry-secret.txt',
      'ferry-app://app/assets/..%2f..%2fferry-secret.txt',
      'ferry-app://app/%2e%2e%5cferry-secret.txt',
      'ferry-app://app/%00index.html',
      'ferry-app://app/%E0%A4%A',
      'ferry-app://other/index.html',
    ]) {
      // Refused, or a name inside the folder (`..` in a URL's path goes no higher than `/`).
      const file = rendererFileFor(root, url);
      expect(file === undefined || file.startsWith(root + path.sep), url).toBe(true);
      expect(file, url).not.toBe(path.join(path.dirname(root), 'ferry-secret.txt'));
    }
  });

  it('serves the renderer’s files with the CSP, and nothing else', async () => {
    const index = await serveRendererFile(root, APP_ENTRY_URL);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await index.text()).toContain('<title>Ferry</title>');

    const script = await serveRendererFile(root, 'ferry-app://app/assets/index.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');

    for (const url of ['ferry-app://app/missing.js', 'ferry-app://app/%2e%2e/ferry-secret.txt']) {
      const answer = await serveRendererFile(root, url);
      expect(answer.status, url).toBe(404);
      expect(await answer.text()).not.toContain('secret');
    }
  });
});
