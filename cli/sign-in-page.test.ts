// The sign-in page netcli has the browser open: only a web-mode link becomes a form, the page is
// a file of this user's alone in a directory nobody else can enter (refused when it is not), and
// it is gone once its token is of no more use.
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInBrowser } from './launch.js';
import { privateDir, signInForm, signInPageHtml, writeSignInPage } from './sign-in-page.js';

const TOKEN = 'A'.repeat(43);
const LINK = `http://127.9.8.7:4242/session/${TOKEN}`;

describe('the sign-in page', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-sign-in-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is made of the web mode’s links only', () => {
    expect(signInForm(LINK)).toEqual({ action: 'http://127.9.8.7:4242/session', token: TOKEN });
    for (const other of [
      `https://127.9.8.7:4242/session/${TOKEN}`,
      `http://example.com:4242/session/${TOKEN}`,
      `http://127.9.8.7:4242/session/${TOKEN}/x`,
      `http://127.9.8.7:4242/session/${TOKEN}?x=1`,
      `http://127.9.8.7:4242/session/a"b`,
      `http://127.9.8.7:4242/other/${TOKEN}`,
      'not a url',
    ])
      expect(signInForm(other), other).toBeUndefined();
  });

  it('posts the token by itself, and escapes what it writes', () => {
    const html = signInPageHtml({ action: 'http://127.9.8.7:4242/session', token: 'a"<b' });
    expect(html).toContain(
      '<form id="sign-in" method="post" action="http://127.9.8.7:4242/session">',
    );
    expect(html).toContain('value="a&#34;&#60;b"');
    expect(html).toContain("<script>document.getElementById('sign-in').submit()</script>");
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
  });

  it('lives in $XDG_RUNTIME_DIR/ferry, else in ferry-<uid> of the temp directory, 0700', async () => {
    const runtime = path.join(dir, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    expect(await privateDir({ XDG_RUNTIME_DIR: runtime })).toBe(path.join(runtime, 'ferry'));
    const fallback = await privateDir({ TMPDIR: dir });
    expect(fallback).toBe(path.join(dir, `ferry-${process.getuid!()}`));
    expect((await stat(fallback!)).mode & 0o777).toBe(0o700);
  });

  it('is not written where others could reach it: a directory open to them, a link, another user’s', async () => {
    const mine = path.join(dir, `ferry-${process.getuid!()}`);
    await mkdir(mine, { mode: 0o700 });
    await chmod(mine, 0o777);
    expect(await privateDir({ TMPDIR: dir })).toBeUndefined();
    expect(await writeSignInPage(LINK, { TMPDIR: dir })).toBeUndefined();
    expect(await readdir(mine)).toEqual([]);

    await rm(mine, { recursive: true });
    await mkdir(path.join(dir, 'elsewhere'), { mode: 0o700 });
    await symlink(path.join(dir, 'elsewhere'), mine);
    expect(await privateDir({ TMPDIR: dir })).toBeUndefined();

    await rm(mine);
    await mkdir(mine, { mode: 0o700 });
    if (process.getuid!() === 0) {
      await chown(mine, 65534, 65534);
      expect(await privateDir({ TMPDIR: dir })).toBeUndefined();
    }
  });

  it('is a new 0600 file, removed after the token’s lifetime, and old ones go too', async () => {
    const runtime = path.join(dir, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    const env = { XDG_RUNTIME_DIR: runtime };
    const ferryDir = (await privateDir(env))!;
    // A page an earlier run left behind (its token long dead).
    const stale = path.join(ferryDir, 'sign-in-old.html');
    await writeFile(stale, 'old');
    await utimes(stale, new Date(0), new Date(0));

    const page = await writeSignInPage(LINK, env, { removeAfterMs: 300 });
    expect(page).toBeDefined();
    expect(path.dirname(page!.file)).toBe(ferryDir);
    expect((await stat(page!.file)).mode & 0o777).toBe(0o600);
    await expect(lstat(stale)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect
      .poll(
        () =>
          lstat(page!.file).then(
            () => 'there',
            () => 'gone',
          ),
        { timeout: 5_000 },
      )
      .toBe('gone');
  });

  it('is not written without a display, and nothing is opened', async () => {
    const runtime = path.join(dir, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    expect(await openInBrowser(LINK, { XDG_RUNTIME_DIR: runtime })).toBe(false);
    await expect(readdir(path.join(runtime, 'ferry'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a browser that cannot be started leaves no page behind', async () => {
    const runtime = path.join(dir, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    const env = { DISPLAY: ':0', PATH: path.join(dir, 'no-bin'), XDG_RUNTIME_DIR: runtime };
    expect(await openInBrowser(LINK, env)).toBe(false);
    expect(await readdir(path.join(runtime, 'ferry'))).toEqual([]);
  });
});
