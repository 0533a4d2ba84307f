// netcli gui in process against the in-memory engine through the real host and its web
// graphical mode: the desktop app where it is installed, otherwise (and with --web) a one-time
// link that signs a browser in, printed for people and as JSON, opened where a browser is,
// through a sign-in page so that the link is never on any process's command line.
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEngine } from '../engine/engine.fake.js';
import { startLocalApiServer } from '../engine/host/local-api-server.js';
import { fakeIo, runNetcli } from './io.fake.js';
import { openInBrowser } from './launch.js';
import { CliHarness } from './testing/cli-harness.js';

// On an address of the web mode's own (a random 127.x.y.z), never 127.0.0.1.
const LINK = /^http:\/\/127\.(?!0\.0\.1:)\d+\.\d+\.\d+:\d+\/session\/[A-Za-z0-9_-]{43}$/;

describe('netcli gui', () => {
  const cli = new CliHarness('ferry-cli-gui-', { gui: true });
  let socketPath: string;
  beforeEach(async () => {
    await cli.start();
    socketPath = cli.socketPath;
  });
  afterEach(() => cli.close());

  it('without a display: prints a one-time link to open, and the same as JSON', async () => {
    const r = await runNetcli(socketPath, ['gui']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'Open Ferry in a browser on this machine (the link works once, within a minute):',
    );
    expect(lines[1]!.trim()).toMatch(LINK);
    expect(r.io.opened).toEqual([]);
    const j = await runNetcli(socketPath, ['gui', '--web', '--json']);
    const answer = JSON.parse(j.stdout) as { url: string; opened: null };
    expect(answer.url).toMatch(LINK);
    expect(answer.opened).toBeNull();
    expect(answer.url).not.toBe(lines[1]!.trim());
    // The link signs a browser in: it is the host's own.
    const signIn = await fetch(answer.url, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/^\/#page=[A-Za-z0-9_-]{43}$/);
  });

  it('opens the link in the browser where there is one, unless --no-open', async () => {
    const io = fakeIo({ browser: true });
    const r = await runNetcli(socketPath, ['gui'], io);
    expect(r.code).toBe(0);
    expect(io.opened).toHaveLength(1);
    expect(io.opened[0]).toMatch(LINK);
    expect(r.stdout).toMatch(/^Ferry is open in your browser/);
    const quiet = fakeIo({ browser: true });
    await runNetcli(socketPath, ['gui', '--no-open'], quiet);
    expect(quiet.opened).toEqual([]);
  });

  it('opens the desktop app where it is installed, and the web mode with --web', async () => {
    const io = fakeIo({ desktopApp: true, browser: true });
    const r = await runNetcli(socketPath, ['gui', '--json'], io);
    expect(JSON.parse(r.stdout)).toEqual({ opened: 'app' });
    const web = fakeIo({ desktopApp: true, browser: true });
    const w = await runNetcli(socketPath, ['gui', '--web', '--json'], web);
    expect(JSON.parse(w.stdout)).toMatchObject({
      opened: 'browser',
      url: expect.stringMatching(LINK),
    });
    expect(web.opened).toEqual([JSON.parse(w.stdout).url]);
  });

  it('an engine host without the graphical mode, or no engine: a clear error', async () => {
    const other = path.join(cli.dir, 'plain.sock');
    const plain = await startLocalApiServer({
      engine: new FakeEngine(),
      socketPath: other,
      group: null,
    });
    try {
      const r = await runNetcli(other, ['gui']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/does not serve the graphical mode/);
    } finally {
      await plain.close();
    }
    const none = await runNetcli(path.join(cli.dir, 'none.sock'), ['gui']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/netcli daemon/);
  });
});

/** The command lines of every process on this machine that can be read. */
async function commandLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    try {
      lines.push((await readFile(`/proc/${pid}/cmdline`, 'utf8')).replace(/\0/g, ' '));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return lines;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the headers a browser would send (fetch refuses to set Origin). */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('netcli gui opening the browser', () => {
  const cli = new CliHarness('ferry-cli-gui-open-', { gui: true });
  let bin: string;
  let runtime: string;
  beforeEach(async () => {
    await cli.start();
    bin = path.join(cli.dir, 'bin');
    runtime = path.join(cli.dir, 'runtime');
    await mkdir(bin);
    await mkdir(runtime, { mode: 0o700 });
    // The browser opener (a real process, as xdg-open is): it keeps what it was given and
    // stays running until the test has looked at every command line.
    await writeFile(
      path.join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${cli.dir}/argv.tmp'\nmv '${cli.dir}/argv.tmp' '${cli.dir}/argv'\n` +
        `i=0; while [ ! -e '${cli.dir}/done' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n`,
    );
    await chmod(path.join(bin, 'xdg-open'), 0o755);
    vi.stubEnv('PATH', `${bin}:${process.env.PATH ?? ''}`);
  });
  afterEach(async () => {
    await writeFile(path.join(cli.dir, 'done'), '');
    vi.unstubAllEnvs();
    await cli.close();
  });

  it('never puts the link on a command line: the browser opens a 0600 file that signs it in', async () => {
    const env = { DISPLAY: ':0', PATH: process.env.PATH!, XDG_RUNTIME_DIR: runtime };
    const io = fakeIo({ env });
    io.openInBrowser = (url) => openInBrowser(url, env);
    const r = await runNetcli(cli.socketPath, ['gui', '--web', '--json'], io);
    expect(r.code).toBe(0);
    const { url, opened } = JSON.parse(r.stdout) as { url: string; opened: string };
    expect(opened).toBe('browser');
    const token = url.split('/').pop()!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // While the opener runs, no process on this machine shows the token.
    const argvFile = path.join(cli.dir, 'argv');
    await expect
      .poll(() =>
        stat(argvFile).then(
          () => true,
          () => false,
        ),
      )
      .toBe(true);
    const leaked = (await commandLines()).filter((line) => line.includes(token));
    expect(leaked).toEqual([]);

    // It was given a file of the user's own, in the runtime directory.
    const argv = (await readFile(argvFile, 'utf8')).trimEnd().split('\n');
    expect(argv).toHaveLength(1);
    const file = argv[0]!.replace(/^file:\/\//, '');
    expect(path.dirname(path.dirname(file))).toBe(runtime);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // The file is a form that posts the token to the listener: a browser opening it signs in.
    const html = await readFile(file, 'utf8');
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const field = /<input[^>]*name="token"[^>]*value="([^"]+)"/.exec(html)?.[1];
    expect(action).toBe(`${new URL(url).origin}/session`);
    expect(field).toBe(token);
    expect(html).toMatch(/<script>[^<]*\.submit\(\)/);
    const signIn = await send(action!, {
      method: 'POST',
      // A file:// page's form: Origin null, from another site.
      headers: {
        origin: 'null',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: field! }).toString(),
    });
    expect(signIn.status).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const pageKey = /url=\/#page=([A-Za-z0-9_-]{43})"/.exec(signIn.body)?.[1];
    expect(pageKey).toBeDefined();
    const status = await send(`${new URL(url).origin}/api/v1/status`, {
      headers: { cookie, 'x-ferry-page': pageKey! },
    });
    expect(status.status).toBe(200);
    // Spent: the same form again signs nothing in.
    const again = await send(action!, {
      method: 'POST',
      headers: { origin: 'null', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: field! }).toString(),
    });
    expect(again.status).toBe(401);
  });
});
