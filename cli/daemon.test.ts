// netcli daemon in process with the in-memory engine: it serves the socket until told to stop,
// then shuts the engine down and removes the socket; it refuses a socket another host serves;
// and root with no engine on the default socket gets one started.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeEngine } from '../engine/engine.fake.js';
import { probeSocket } from '../engine/host/socket-file.js';
import { startLocalApiServer, type LocalApiServer } from '../engine/host/local-api-server.js';
import { ensureEngine } from './engine-connection.js';
import { fakeIo, runNetcli } from './io.fake.js';

describe('netcli daemon', () => {
  let dir: string;
  let socketPath: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-daemon-'));
    socketPath = path.join(dir, 'run', 'engine.sock');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the engine until SIGTERM, then shuts it down and removes the socket', async () => {
    const engine = new FakeEngine();
    const made: unknown[] = [];
    const io = fakeIo({
      createEngine: (options) => {
        made.push(options);
        return engine;
      },
    });
    const stateDir = path.join(dir, 'state');
    const daemon = runNetcli(socketPath, ['daemon', '--state-dir', stateDir], io);
    await expect.poll(() => probeSocket(socketPath)).toBe('live');
    expect(made).toEqual([{ stateDir, geoipFile: undefined }]);
    expect((await stat(socketPath)).mode & 0o777).toBe(0o660);

    await runNetcli(socketPath, ['init', '--endpoint', 'https://ferry.example']);
    await runNetcli(socketPath, ['account', 'create']);
    expect((await runNetcli(socketPath, ['connect'])).code).toBe(0);
    io.interrupt();
    const r = await daemon;
    expect(r.code).toBe(0);
    expect(engine.shutdowns).toBe(1);
    expect(engine.status().status).toBe('disconnected');
    await expect(stat(socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
    const log = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { component: string; msg: string });
    expect(log.map((l) => l.msg)).toEqual(['engine host listening', 'shutting down', 'stopped']);
    expect(log.every((l) => l.component === 'netcli-daemon')).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('hands --udp-retry-after to the engine, and refuses a wait that is not whole seconds', async () => {
    const made: unknown[] = [];
    const io = fakeIo({
      createEngine: (options) => {
        made.push(options);
        return new FakeEngine();
      },
    });
    const daemon = runNetcli(socketPath, ['daemon', '--udp-retry-after', '30'], io);
    await expect.poll(() => probeSocket(socketPath)).toBe('live');
    expect(made).toEqual([expect.objectContaining({ udpRetryAfterSeconds: 30 })]);
    io.interrupt();
    expect((await daemon).code).toBe(0);
    for (const bad of ['0', '1.5', 'soon', '86401']) {
      const r = await runNetcli(socketPath, ['daemon', '--udp-retry-after', bad], fakeIo({}));
      expect(r.code, bad).not.toBe(0);
      expect(r.stderr).toMatch(/--udp-retry-after.*whole seconds, 1-86400/);
    }
  });

  it('refuses to start beside a live engine host, and lets its engine go', async () => {
    const live = await startLocalApiServer({ engine: new FakeEngine(), socketPath, group: null });
    try {
      const engine = new FakeEngine();
      const r = await runNetcli(socketPath, ['daemon'], fakeIo({ createEngine: () => engine }));
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `netcli: another engine host is already answering on ${socketPath}\nhint: stop that engine first, or give this one another --socket\n`,
      );
      expect(engine.shutdowns).toBe(1);
      expect(await probeSocket(socketPath)).toBe('live');
    } finally {
      await live.close();
    }
  });

  describe('starting the engine for root', () => {
    let started: LocalApiServer | undefined;
    afterEach(async () => {
      await started?.close();
      started = undefined;
    });
    const starter = async (p: string) => {
      started = await startLocalApiServer({ engine: new FakeEngine(), socketPath: p, group: null });
    };

    it('starts one on the default socket when none answers, and waits for it', async () => {
      const io = fakeIo({ isRoot: true, startDaemon: starter });
      await ensureEngine({ path: socketPath, isDefault: true }, io);
      expect(io.daemonStarts).toEqual([socketPath]);
      expect(await probeSocket(socketPath)).toBe('live');
      expect(io.stderr.text).toMatch(/starting one \(netcli daemon\)/);
      // Running now: not started twice.
      await ensureEngine({ path: socketPath, isDefault: true }, io);
      expect(io.daemonStarts).toHaveLength(1);
    });

    it('leaves a socket someone chose, and a user who is not root, alone', async () => {
      const chosen = fakeIo({ isRoot: true, startDaemon: starter });
      await ensureEngine({ path: socketPath, isDefault: false }, chosen);
      const user = fakeIo({ isRoot: false, startDaemon: starter });
      await ensureEngine({ path: socketPath, isDefault: true }, user);
      expect([...chosen.daemonStarts, ...user.daemonStarts]).toEqual([]);
      expect(await probeSocket(socketPath)).toBe('absent');
    });
  });
});
