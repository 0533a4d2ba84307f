// netcli gui in process against the in-memory engine through the real host and its web
// graphical mode: the desktop app where it is installed, otherwise (and with --web) a one-time
// link that signs a browser in, printed for people and as JSON, opened where a browser is.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeEngine } from '../engine/engine.fake.js';
import { startLocalApiServer } from '../engine/host/local-api-server.js';
import { fakeIo, runNetcli } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/session\/[A-Za-z0-9_-]{43}$/;

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
