// The sign-in page netcli has the browser open (Jupyter's way): a small HTML file, readable by
// this user only, in their runtime directory, whose form posts the one-time link's token to the
// engine host's listener by itself. The browser is then given the file's path, so the token is
// never on a command line (where every local user can read it in /proc). The file is removed
// once its token is of no more use.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SIGN_IN_TOKEN_LIFETIME_MS, WEB_SECRET } from '../contracts/browser-sessions.js';
import { textDirection, translator, type Language } from '../contracts/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A little longer than the token lives: a slow browser still finds the file while it can use it. */
const KEEP_MS = SIGN_IN_TOKEN_LIFETIME_MS + 30_000;
const PAGE_NAME = /^sign-in-[A-Za-z0-9_-]+\.html$/;

export interface SignInForm {
  /** Where the form posts: the listener's /session. */
  action: string;
  token: string;
}

/**
 * The form of a one-time link (`http://127.x.y.z:PORT/session/TOKEN`); undefined for anything
 * else, which is not a link of the web graphical mode and is not written into a page.
 */
export function signInForm(link: string): SignInForm | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  const token = /^\/session\/([^/]+)$/.exec(url.pathname)?.[1];
  const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
  if (url.protocol !== 'http:' || !loopback || token === undefined || !WEB_SECRET.test(token))
    return undefined;
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    return undefined;
  return { action: `${url.origin}/session`, token };
}

function attribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page: the form, sent by its own script; a button where scripts do not run. */
export function signInPageHtml(form: SignInForm, language: Language = 'en'): string {
  const t = translator(language);
  const words = (key: Parameters<typeof t>[0]) => attribute(t(key));
  // eslint-disable-next-line i18next/no-literal-string -- the page's markup; its words are the catalog's
  return `<!doctype html>
<html lang="${language}" dir="${textDirection(language)}">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>${words('netcli.signIn.title')}</title>
</head>
<body>
<form id="sign-in" method="post" action="${attribute(form.action)}">
<input type="hidden" name="token" value="${attribute(form.token)}">
<p>${words('netcli.signIn.title')} ${words('netcli.signIn.ifNothing')} <button type="submit">${words('netcli.signIn.button')}</button>${words('netcli.signIn.end')}</p>
</form>
<script>document.getElementById('sign-in').submit()</script>
</body>
</html>
`;
}

/**
 * A directory of this user's own that nobody else can enter: `$XDG_RUNTIME_DIR/ferry`, else
 * `ferry-<uid>` in the temp directory. Undefined when what is there is not that (another user's,
 * a link, open to others): the page is then not written (fails closed).
 */
export async function privateDir(env: Env): Promise<string | undefined> {
  const uid = process.getuid?.();
  const runtime = env.XDG_RUNTIME_DIR;
  const dir =
    runtime && path.isAbsolute(runtime)
      ? path.join(runtime, 'ferry')
      : path.join(env.TMPDIR || tmpdir(), `ferry-${uid ?? 'user'}`);
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const found = await lstat(dir).catch(() => undefined);
  if (found === undefined || !found.isDirectory()) return undefined;
  // Windows has neither owners by number nor these modes; its temp directory is the user's own.
  if (uid !== undefined && (found.uid !== uid || (found.mode & 0o077) !== 0)) return undefined;
  return dir;
}

/** Removes sign-in pages older than any token could still use (left by a run that was cut). */
async function removeStale(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const before = Date.now() - KEEP_MS;
  for (const name of names.filter((n) => PAGE_NAME.test(n))) {
    const file = path.join(dir, name);
    const info = await lstat(file).catch(() => undefined);
    if (info && info.mtimeMs < before) await rm(file, { force: true });
  }
}

/**
 * Removes the file after `ms`, from a small process of its own: netcli itself ends as soon as
 * the browser was asked to open the page. Only the file's path is on its command line.
 */
function removeLater(file: string, ms: number): void {
  /* eslint-disable i18next/no-literal-string -- JavaScript for node -e, not words */
  const code =
    'const [file, ms] = process.argv.slice(1);' +
    "setTimeout(() => { try { require('node:fs').rmSync(file, { force: true }); } catch {} }, Number(ms));";
  /* eslint-enable i18next/no-literal-string */
  const child = spawn(process.execPath, ['-e', code, file, String(ms)], {
    detached: true,
    stdio: 'ignore',
  });
  child.once('error', () => undefined);
  child.unref();
}

export interface SignInPage {
  /** The page's path, to give the browser. */
  file: string;
  /** Removes it now (the browser could not be started). */
  remove(): Promise<void>;
}

/**
 * Writes the sign-in page of a one-time link: mode 0600, a new name (never an existing file),
 * removed after the token's lifetime. Undefined when the link is not one of the web mode's or
 * there is no private directory for it.
 */
export async function writeSignInPage(
  link: string,
  env: Env,
  options: { removeAfterMs?: number; language?: Language } = {},
): Promise<SignInPage | undefined> {
  const form = signInForm(link);
  if (form === undefined) return undefined;
  const dir = await privateDir(env);
  if (dir === undefined) return undefined;
  await removeStale(dir);
  const file = path.join(dir, `sign-in-${randomBytes(12).toString('base64url')}.html`);
  await writeFile(file, signInPageHtml(form, options.language), { flag: 'wx', mode: 0o600 });
  removeLater(file, options.removeAfterMs ?? KEEP_MS);
  return { file, remove: () => rm(file, { force: true }) };
}
