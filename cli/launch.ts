// Opening the graphical mode on this machine: the installed desktop app, or the browser signed in
// to the web graphical mode. Only where a person can see it: no display (a server, a test
// namespace) opens nothing, and netcli prints the link instead.
import type { Language } from '../contracts/index.js';
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { writeSignInPage } from './sign-in-page.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where the desktop packages put the app (electron-builder's deb/AppImage, macOS, Windows). */
function desktopAppCandidates(env: Env, platform: NodeJS.Platform): string[] {
  const own = env.FERRY_DESKTOP_APP ? [env.FERRY_DESKTOP_APP] : [];
  if (platform === 'darwin') return [...own, '/Applications/Ferry.app/Contents/MacOS/Ferry'];
  if (platform === 'win32')
    // eslint-disable-next-line i18next/no-literal-string -- a file's path, not words
    return [...own, path.join(env.LOCALAPPDATA ?? '', 'Programs', 'Ferry', 'Ferry.exe')];
  return [...own, '/opt/Ferry/ferry'];
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a person could see a window here. */
export function hasDisplay(env: Env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** The installed desktop app, when there is one. */
export function findDesktopApp(
  env: Env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  return desktopAppCandidates(env, platform).find(executable);
}

/** The command that opens a URL in the user's browser. */
function opener(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return ['xdg-open', []];
}

function detached(command: string, args: string[], env?: Env): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      detached: true,
      stdio: 'ignore',
      ...(env ? { env: { ...env } } : {}),
    });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** Starts the desktop app; false when there is none or no display to show it on. */
export async function launchDesktopApp(env: Env): Promise<boolean> {
  const app = findDesktopApp(env);
  return app !== undefined && hasDisplay(env) && detached(app, []);
}

export interface OpenInBrowserOptions {
  /** When the sign-in page is removed (default: once its token can no longer be used). */
  removeAfterMs?: number;
  /** The language of the sign-in page's words (default English). */
  language?: Language;
}

/**
 * Signs the browser in to the web graphical mode with the one-time link `url`, without ever
 * putting the link on a command line (any local user reads those in /proc, of the opener and
 * then of the browser): the browser opens a sign-in page, a file only this user can read, that
 * posts the link's token (sign-in-page.ts). False when there is no display, no opener, or no
 * safe place for the file; netcli then prints the link.
 */
export async function openInBrowser(
  url: string,
  env: Env,
  options: OpenInBrowserOptions = {},
): Promise<boolean> {
  if (!hasDisplay(env)) return false;
  const page = await writeSignInPage(url, env, options);
  if (page === undefined) return false;
  const [command, args] = opener(process.platform);
  const opened = await detached(command, [...args, page.file], env);
  if (!opened) await page.remove();
  return opened;
}
