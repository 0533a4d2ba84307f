// The renderer is served on the app's own scheme (ferry-app://app/...) from dist/renderer, not
// from file://: a file:// page could read any file, and `'self'` in its CSP would mean every
// file. Only files inside the renderer's folder are served, each with the strict CSP.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTENT_SECURITY_POLICY } from './content-security.js';

export const APP_SCHEME = 'ferry-app';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** What the window loads. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** The scheme's privileges (protocol.registerSchemesAsPrivileged, before the app is ready). */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  // standard: relative URLs and an origin of its own; secure: treated like https.
  privileges: { standard: true, secure: true },
} as const;

/** Whether a URL is one of the app's own renderer pages (the IPC handlers' sender check). */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host === APP_HOST &&
    parsed.username === '' &&
    parsed.password === ''
  );
}

/**
 * The file under `root` a request URL names, or undefined: another host, an escape from the
 * folder (`..`, encoded or not), a malformed escape, a NUL. `/` is index.html.
 */
export function rendererFileFor(root: string, url: string): string | undefined {
  if (!isAppUrl(url)) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0')) return undefined;
  const relative =
    pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const base = path.resolve(root);
  const file = path.resolve(base, relative);
  if (file !== base && file.startsWith(base + path.sep)) return file;
  return undefined;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

const COMMON_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

/** A 404's body: for a request of a file the app does not have (never shown to a person). */
const NOT_FOUND = 'not found';

/** The answer to one request of the app's scheme (protocol.handle's handler). */
export async function serveRendererFile(root: string, url: string): Promise<Response> {
  const file = rendererFileFor(root, url);
  if (!file) return new Response(NOT_FOUND, { status: 404, headers: COMMON_HEADERS });
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return new Response(NOT_FOUND, { status: 404, headers: COMMON_HEADERS });
  }
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: { ...COMMON_HEADERS, 'content-type': type },
  });
}
