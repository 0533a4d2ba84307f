// Hosted or attached: the decision table (privileges x what answers on the socket), the
// capability check, the words a user gets when there is no engine, the fallbacks when hosting
// fails, and hosting itself: the engine served on the socket, so netcli shares it.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_ENGINE_SOCKET, createLocalClient } from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { FerryError } from '../../engine/errors.js';
import { startLocalApiServer } from '../../engine/host/local-api-server.js';
import { SocketFileError } from '../../engine/host/socket-file.js';
import { createUnixFetch } from '../../engine/host/unix-fetch.js';
import {
  chooseEngine,
  engineUnavailableMessage,
  hasNetAdmin,
  openEngine,
  type EngineFacts,
} from './choose-engine.js';
import { hostEngine } from './engine-hosting.js';
import { unavailablePort, type EnginePort } from './engine-port.js';

const CAP_ALL = '000001ffffffffff';
const CAP_NET_ADMIN_ONLY = '0000000000001000';
const CAP_NET_RAW_ONLY = '0000000000002000';
const CAP_NONE = '0000000000000000';

function procStatus(capEff: string): string {
  return `Name:\telectron\nUmask:\t0022\nCapInh:\t0000000000000000\nCapPrm:\t${capEff}\nCapEff:\t${capEff}\nCapBnd:\t000001ffffffffff\n`;
}

function facts(opts: {
  uid?: number | undefined;
  capEff?: string | undefined;
  socket?: string;
  env?: Record<string, string>;
}): EngineFacts & { probed: string[] } {
  const probed: string[] = [];
  return {
    probed,
    env: opts.env ?? {},
    uid: () => opts.uid,
    procStatus: async () => (opts.capEff === undefined ? undefined : procStatus(opts.capEff)),
    probeSocket: async (p) => {
      probed.push(p);
      return opts.socket ?? 'absent';
    },
  };
}

describe('the capability check', () => {
  it('reads CAP_NET_ADMIN (bit 12) of the effective set', () => {
    expect(hasNetAdmin(procStatus(CAP_ALL))).toBe(true);
    expect(hasNetAdmin(procStatus(CAP_NET_ADMIN_ONLY))).toBe(true);
    expect(hasNetAdmin(procStatus(CAP_NET_RAW_ONLY))).toBe(false);
    expect(hasNetAdmin(procStatus(CAP_NONE))).toBe(false);
    // Permitted but not effective is not enough.
    expect(hasNetAdmin('CapPrm:\t0000000000001000\nCapEff:\t0000000000000000\n')).toBe(false);
    expect(hasNetAdmin(undefined)).toBe(false);
    expect(hasNetAdmin('Name:\tno capabilities here\n')).toBe(false);
  });
});

describe('choosing the engine', () => {
  it.each([
    // uid, CapEff, what answers on the socket -> mode
    { uid: 0, capEff: CAP_ALL, socket: 'absent', mode: 'hosted' },
    { uid: 0, capEff: CAP_ALL, socket: 'stale', mode: 'hosted' },
    { uid: 0, capEff: CAP_ALL, socket: 'live', mode: 'attached' },
    { uid: 1000, capEff: CAP_NET_ADMIN_ONLY, socket: 'absent', mode: 'hosted' },
    { uid: 1000, capEff: CAP_NET_ADMIN_ONLY, socket: 'live', mode: 'attached' },
    { uid: 1000, capEff: CAP_NET_RAW_ONLY, socket: 'absent', mode: 'attached' },
    { uid: 1000, capEff: CAP_NONE, socket: 'absent', mode: 'attached' },
    { uid: 1000, capEff: CAP_NONE, socket: 'live', mode: 'attached' },
    { uid: 1000, capEff: CAP_NONE, socket: 'EACCES', mode: 'attached' },
    // No uids and no /proc (Windows, macOS): never hosted.
    { uid: undefined, capEff: undefined, socket: 'absent', mode: 'attached' },
  ] as const)('uid $uid, CapEff $capEff, socket $socket: $mode', async (row) => {
    const f = facts(row);
    const choice = await chooseEngine(f);
    expect(choice.mode).toBe(row.mode);
    expect(choice.socketPath).toBe(DEFAULT_ENGINE_SOCKET);
    expect(f.probed).toEqual([DEFAULT_ENGINE_SOCKET]);
  });

  it('uses FERRY_SOCKET when it is set', async () => {
    const f = facts({ uid: 0, env: { FERRY_SOCKET: '/tmp/ferry-test.sock' } });
    expect(await chooseEngine(f)).toMatchObject({
      mode: 'hosted',
      socketPath: '/tmp/ferry-test.sock',
    });
    expect(f.probed).toEqual(['/tmp/ferry-test.sock']);
    const empty = facts({ uid: 1000, env: { FERRY_SOCKET: '' } });
    expect((await chooseEngine(empty)).socketPath).toBe(DEFAULT_ENGINE_SOCKET);
  });
});

describe('what a user is told when there is no engine', () => {
  it('says how to start it, on the default socket and on another', () => {
    expect(engineUnavailableMessage(DEFAULT_ENGINE_SOCKET, 'not-running')).toBe(
      'The Ferry engine is not running. Start it with: sudo systemctl start ferry-engine (or run sudo netcli daemon).',
    );
    expect(engineUnavailableMessage('/tmp/e.sock', 'not-running')).toContain(
      'sudo netcli daemon --socket /tmp/e.sock',
    );
  });

  it('says there is no engine for this system yet where it is not Linux', () => {
    for (const platform of ['win32', 'darwin'] as const)
      expect(engineUnavailableMessage(DEFAULT_ENGINE_SOCKET, 'not-running', platform)).toContain(
        'runs on Linux only so far',
      );
  });

  it('says how to be let in when the socket refuses this user', () => {
    expect(engineUnavailableMessage(DEFAULT_ENGINE_SOCKET, 'permission-denied')).toContain(
      'sudo usermod -aG ferry $USER',
    );
  });

  it('says why hosting failed, and how to start an engine instead', () => {
    const m = engineUnavailableMessage(DEFAULT_ENGINE_SOCKET, {
      hostingFailed: 'state-dir-insecure: ...',
    });
    expect(m).toContain('could not start the Ferry engine itself (state-dir-insecure: ...)');
    expect(m).toContain('sudo systemctl start ferry-engine');
  });
});

describe('opening the port for a choice', () => {
  const log = { info: vi.fn(), warn: vi.fn() };
  const hostedChoice = { mode: 'hosted', socketPath: '/run/x.sock', why: 'test' } as const;

  const deps = (host: () => Promise<EnginePort>) => {
    const attach = vi.fn((socketPath: string, notRunning?: string) =>
      unavailablePort(`${socketPath} ${notRunning ?? 'default words'}`),
    );
    return {
      attach,
      deps: {
        host,
        attach,
        describe: (e: unknown) => (e instanceof FerryError ? `${e.code}: ${e.message}` : undefined),
        log,
      },
    };
  };

  it('attaches for an attached choice, without hosting', async () => {
    const host = vi.fn(async () => unavailablePort('hosted'));
    const { attach, deps: d } = deps(host);
    await openEngine({ mode: 'attached', socketPath: '/run/x.sock', why: 'test' }, { ...d, host });
    expect(host).not.toHaveBeenCalled();
    expect(attach).toHaveBeenCalledWith('/run/x.sock');
  });

  it('hosts for a hosted choice', async () => {
    const hosted = unavailablePort('the hosted one');
    const { attach, deps: d } = deps(async () => hosted);
    expect(await openEngine(hostedChoice, d)).toBe(hosted);
    expect(attach).not.toHaveBeenCalled();
  });

  it('attaches when an engine host came up meanwhile', async () => {
    const { attach, deps: d } = deps(async () => {
      throw new SocketFileError('engine-already-running', 'an engine host is already running');
    });
    await openEngine(hostedChoice, d);
    expect(attach).toHaveBeenCalledWith('/run/x.sock');
  });

  it('attaches when hosting fails, and the calls say why (never a bug’s own text)', async () => {
    const failing = deps(async () => {
      throw new FerryError('state-dir-insecure', 'the state directory is open to other users');
    });
    const port = await openEngine(hostedChoice, failing.deps);
    expect(failing.attach).toHaveBeenCalledTimes(1);
    await expect(port.call('status', {})).rejects.toMatchObject({
      code: 'engine-unavailable',
      message: expect.stringContaining(
        'could not start the Ferry engine itself (state-dir-insecure: the state directory is open to other users)',
      ),
    });

    const buggy = deps(async () => {
      throw new TypeError('secret 10.1.2.3');
    });
    const other = await openEngine(hostedChoice, buggy.deps);
    const e = (await other.call('status', {}).catch((x: unknown) => x)) as Error;
    expect(e.message).toContain('(see the log)');
    expect(e.message).not.toContain('10.1.2.3');
  });
});

describe('hosting the engine', () => {
  let dir: string;
  let socketPath: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ferry-host-'));
    socketPath = path.join(dir, 'run', 'engine.sock');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the hosted engine on the socket, so netcli sees the same engine', async () => {
    const engine = new FakeEngine();
    const port = await hostEngine({
      socketPath,
      stateDir: path.join(dir, 'state'),
      createEngine: async () => engine,
      group: null,
    });
    expect(port.mode).toBe('hosted');
    await port.call('init', { body: { endpoint: 'https://ferry.example' } });
    await port.call('createAccount', { body: {} });
    await port.call('connect', { body: { region: 'asia-east' } });

    const fetch = createUnixFetch(socketPath);
    try {
      const netcli = createLocalClient({ fetch });
      expect(await netcli.status()).toMatchObject({ status: 'connected', region: 'asia-east' });
    } finally {
      await fetch.close();
    }

    await port.close();
    expect(engine.shutdowns).toBe(1);
    await expect(stat(socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never runs a second engine beside a live engine host: it shuts its own down', async () => {
    const running = await startLocalApiServer({
      engine: new FakeEngine(),
      socketPath,
      group: null,
    });
    const second = new FakeEngine();
    try {
      const e = await hostEngine({
        socketPath,
        stateDir: path.join(dir, 'state'),
        createEngine: async () => second,
        group: null,
      }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'engine-already-running' });
      expect(second.shutdowns).toBe(1);
    } finally {
      await running.close();
    }
  });
});
