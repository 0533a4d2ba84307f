// Programs on one way: `netcli exec`'s own process (and no other) put on its way, the program
// rules' processes found by their executable's real path and put on theirs, at once and then on
// every scan, and the cgroups and the programs' table made once and taken away only when no
// program is left on a way.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { AppRule, SplitVia } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import type { AppCgroupPaths, AppCgroups } from '../os/app-cgroups.js';
import {
  AppSplit,
  isNetcliExec,
  type AppSplitDeps,
  type ProcessInfo,
  type ProcessTable,
} from './app-split.js';

const PATHS: AppCgroupPaths = {
  direct: 'ferry-1a2b3c4d/direct',
  tunnel: 'ferry-1a2b3c4d/tunnel',
  level: 2,
};

const NETCLI_EXEC = ['node', '/x/bin/netcli', 'exec', '--via', 'direct', '--', 'curl'];

/** What the cgroups and the table were asked, in order, into one log. */
class FakeCgroups implements AppCgroups {
  /** The way of each process. */
  readonly ways = new Map<number, SplitVia>();
  /** Processes gone (a move fails). */
  readonly gone = new Set<number>();
  /** What release() answers (false: a program is still on a way). */
  releases = true;

  constructor(private readonly log: string[]) {}

  async prepare(): Promise<AppCgroupPaths> {
    this.log.push('prepare');
    return PATHS;
  }

  async move(pid: number, via: SplitVia): Promise<void> {
    this.log.push(`move ${pid} ${via}`);
    if (this.gone.has(pid)) throw new FerryError('config-invalid', `no process ${pid}`);
    this.ways.set(pid, via);
  }

  async wayOf(pid: number): Promise<SplitVia | null> {
    return this.ways.get(pid) ?? null;
  }

  async release(): Promise<boolean> {
    this.log.push('release');
    return this.releases;
  }
}

class FakeProcesses implements ProcessTable {
  procs: ProcessInfo[] = [];
  readonly argvs = new Map<number, string[]>();
  /** Paths and their real paths (links resolved); a path absent here is not there. */
  readonly files = new Map<string, string>();

  async list(): Promise<ProcessInfo[]> {
    return [...this.procs];
  }

  async argv(pid: number): Promise<string[] | null> {
    return this.argvs.get(pid) ?? null;
  }

  async realpath(file: string): Promise<string | null> {
    return this.files.get(file) ?? null;
  }
}

let log: string[];
let cgroups: FakeCgroups;
let processes: FakeProcesses;
let apps: AppSplit;

function appSplit(over: Partial<AppSplitDeps> = {}): AppSplit {
  return new AppSplit({
    cgroups,
    table: {
      apply: async (paths) => {
        expect(paths).toEqual(PATHS);
        log.push('apply');
      },
      remove: async () => {
        log.push('remove');
      },
    },
    processes,
    scanMs: 20,
    ...over,
  });
}

const moves = () => log.filter((l) => l.startsWith('move '));
const count = (what: string) => log.filter((l) => l === what).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

const firefox: AppRule = { app: '/usr/bin/firefox', via: 'tunnel' };

beforeEach(() => {
  log = [];
  cgroups = new FakeCgroups(log);
  processes = new FakeProcesses();
  // /usr/bin/firefox is a link to the real executable, which /proc/PID/exe names.
  processes.files.set('/usr/bin/firefox', '/usr/lib/firefox/firefox');
  processes.files.set('/usr/lib/firefox/firefox', '/usr/lib/firefox/firefox');
  processes.files.set('/usr/bin/curl', '/usr/bin/curl');
  apps = appSplit();
});
afterEach(async () => {
  await apps.stop();
});

describe('AppSplit.exec', () => {
  it('puts a netcli exec’s own process on its way, the cgroups and the table made first', async () => {
    processes.argvs.set(4242, NETCLI_EXEC);
    await apps.exec(4242, 'direct');
    expect(log).toEqual(['prepare', 'apply', 'move 4242 direct']);
    expect(cgroups.ways.get(4242)).toBe('direct');
  });

  it('moves no other process of this host', async () => {
    processes.argvs.set(1, ['/sbin/init']);
    processes.argvs.set(777, ['curl', 'https://example.com']);
    processes.argvs.set(778, ['node', '/x/bin/netcli', 'status']);
    for (const pid of [1, 777, 778]) {
      const e = await refusal(apps.exec(pid, 'tunnel'));
      expect(e.code).toBe('config-invalid');
      expect(e.message).toContain(String(pid));
    }
    // A process that is not there.
    const missing = await refusal(apps.exec(9999, 'direct'));
    expect(missing.code).toBe('config-invalid');
    expect(missing.message).toMatch(/no process 9999/);
    expect(log).toEqual([]);
  });

  it('makes the cgroups and the table once for many programs', async () => {
    for (const pid of [100, 101, 102]) processes.argvs.set(pid, NETCLI_EXEC);
    await apps.exec(100, 'direct');
    await apps.exec(101, 'tunnel');
    await apps.exec(102, 'direct');
    expect(count('prepare')).toBe(1);
    expect(count('apply')).toBe(1);
    expect(moves()).toEqual(['move 100 direct', 'move 101 tunnel', 'move 102 direct']);
  });

  it('passes on a move that fails (the process is gone)', async () => {
    processes.argvs.set(4242, NETCLI_EXEC);
    cgroups.gone.add(4242);
    const e = await refusal(apps.exec(4242, 'tunnel'));
    expect(e.code).toBe('config-invalid');
  });
});

describe('AppSplit.setRules', () => {
  it('puts the running processes of a rule’s program on its way at once, by the real path', async () => {
    processes.procs = [
      { pid: 100, exe: '/usr/lib/firefox/firefox' },
      { pid: 101, exe: '/usr/bin/curl' },
      { pid: 102, exe: '/usr/lib/firefox/firefox' },
    ];
    await apps.setRules([firefox]);
    expect(log).toEqual(['prepare', 'apply', 'move 100 tunnel', 'move 102 tunnel']);
    expect(cgroups.ways.has(101)).toBe(false);
  });

  it('moves only the processes not on the rule’s way yet', async () => {
    processes.procs = [
      { pid: 100, exe: '/usr/lib/firefox/firefox' },
      { pid: 101, exe: '/usr/lib/firefox/firefox' },
      { pid: 102, exe: '/usr/lib/firefox/firefox' },
    ];
    cgroups.ways.set(100, 'tunnel');
    cgroups.ways.set(101, 'direct');
    await apps.setRules([firefox]);
    expect(moves()).toEqual(['move 101 tunnel', 'move 102 tunnel']);
  });

  it('goes on past a process it cannot move (gone meanwhile)', async () => {
    processes.procs = [
      { pid: 100, exe: '/usr/lib/firefox/firefox' },
      { pid: 101, exe: '/usr/lib/firefox/firefox' },
    ];
    cgroups.gone.add(100);
    await apps.setRules([firefox]);
    expect(moves()).toEqual(['move 100 tunnel', 'move 101 tunnel']);
    expect(cgroups.ways.get(101)).toBe('tunnel');
  });

  it('keeps looking: a program started later is put on its way within a scan', async () => {
    await apps.setRules([firefox, { app: '/usr/bin/curl', via: 'direct' }]);
    expect(moves()).toEqual([]);
    processes.procs = [
      { pid: 200, exe: '/usr/lib/firefox/firefox' },
      { pid: 201, exe: '/usr/bin/curl' },
    ];
    await vi.waitFor(() => expect(moves()).toEqual(['move 200 tunnel', 'move 201 direct']), {
      timeout: 2000,
      interval: 10,
    });
    // Once on its way, a process is not moved again.
    await sleep(100);
    expect(moves()).toHaveLength(2);
    expect(count('prepare')).toBe(1);
    expect(count('apply')).toBe(1);
  });

  it('looks for a rule’s program that is not installed yet by its path', async () => {
    await apps.setRules([{ app: '/opt/tool/bin/tool', via: 'direct' }]);
    processes.procs = [{ pid: 300, exe: '/opt/tool/bin/tool' }];
    await vi.waitFor(() => expect(moves()).toEqual(['move 300 direct']), {
      timeout: 2000,
      interval: 10,
    });
  });

  it('follows the rules as they change, and stops looking when there are none', async () => {
    await apps.setRules([firefox]);
    // The rule's way changes: firefox's processes go the new way.
    processes.procs = [{ pid: 100, exe: '/usr/lib/firefox/firefox' }];
    await apps.setRules([{ app: '/usr/bin/firefox', via: 'direct' }]);
    expect(moves()).toEqual(['move 100 direct']);

    await apps.setRules([]);
    processes.procs.push({ pid: 101, exe: '/usr/lib/firefox/firefox' });
    await sleep(150);
    expect(moves()).toEqual(['move 100 direct']);
  });

  it('makes nothing for no rules', async () => {
    await apps.setRules([]);
    expect(log).toEqual([]);
  });
});

describe('AppSplit.stop', () => {
  it('does nothing before anything was made', async () => {
    await apps.stop();
    expect(log).toEqual([]);
  });

  it('removes the cgroups and the table when no program is left on a way', async () => {
    processes.argvs.set(4242, NETCLI_EXEC);
    await apps.exec(4242, 'tunnel');
    log.length = 0;
    await apps.stop();
    expect(log).toEqual(['release', 'remove']);
    // Made again for the next program.
    await apps.exec(4242, 'direct');
    expect(log).toEqual(['release', 'remove', 'prepare', 'apply', 'move 4242 direct']);
  });

  it('keeps the table while a program is still on a way (it holds without the engine)', async () => {
    processes.argvs.set(4242, NETCLI_EXEC);
    await apps.exec(4242, 'tunnel');
    cgroups.releases = false;
    log.length = 0;
    await apps.stop();
    expect(log).toEqual(['release']);
    // The program ended meanwhile: the next stop takes both away.
    cgroups.releases = true;
    await apps.stop();
    expect(log).toEqual(['release', 'release', 'remove']);
  });

  it('stops looking for the rules’ programs', async () => {
    await apps.setRules([firefox]);
    await apps.stop();
    processes.procs = [{ pid: 100, exe: '/usr/lib/firefox/firefox' }];
    await sleep(150);
    expect(moves()).toEqual([]);
  });
});

describe('AppSplit.tidy', () => {
  it('takes the cgroups and the table away at a disconnect when no rule and no program needs them', async () => {
    await apps.tidy();
    expect(log).toEqual([]);
    processes.argvs.set(4242, NETCLI_EXEC);
    await apps.exec(4242, 'direct');
    log.length = 0;
    await apps.tidy();
    expect(log).toEqual(['release', 'remove']);
  });

  it('keeps them while a program is still on a way', async () => {
    processes.argvs.set(4242, NETCLI_EXEC);
    await apps.exec(4242, 'tunnel');
    cgroups.releases = false;
    log.length = 0;
    await apps.tidy();
    expect(log).toEqual(['release']);
  });

  it('keeps them, and keeps looking, while there are program rules', async () => {
    await apps.setRules([firefox]);
    log.length = 0;
    await apps.tidy();
    expect(log).toEqual([]);
    processes.procs = [{ pid: 100, exe: '/usr/lib/firefox/firefox' }];
    await vi.waitFor(() => expect(moves()).toEqual(['move 100 tunnel']), {
      timeout: 2000,
      interval: 10,
    });
  });
});

describe('isNetcliExec', () => {
  it('knows netcli exec’s arguments', () => {
    expect(isNetcliExec(NETCLI_EXEC)).toBe(true);
    expect(
      isNetcliExec([
        '/usr/bin/node',
        '/usr/lib/ferry/dist/cli/netcli.js',
        'exec',
        '--socket',
        '/tmp/ferry.sock',
        '--via',
        'tunnel',
        '--',
        'sh',
        '-c',
        'curl example.com',
      ]),
    ).toBe(true);
  });

  it('knows any other process’s for what they are', () => {
    expect(isNetcliExec([])).toBe(false);
    expect(isNetcliExec(['curl', 'https://example.com'])).toBe(false);
    expect(isNetcliExec(['node', '/x/bin/netcli', 'status'])).toBe(false);
    expect(isNetcliExec(['node', '/x/bin/netcli', 'exec'])).toBe(false);
    expect(
      isNetcliExec([
        'node',
        '/x/bin/netcli',
        'split',
        'add',
        '--app',
        '/bin/sh',
        '--via',
        'tunnel',
      ]),
    ).toBe(false);
    // --via before exec is no exec's option.
    expect(isNetcliExec(['curl', '--via', 'x', 'exec'])).toBe(false);
  });

  it('knows netcli exec with --via=WAY (the option as commander also takes it)', async () => {
    const argv = ['node', '/x/bin/netcli', 'exec', '--via=direct', '--', 'curl'];
    expect(isNetcliExec(argv)).toBe(true);
    // `netcli exec --via=direct -- curl` is put on its way like `--via direct`.
    processes.argvs.set(4242, argv);
    await apps.exec(4242, 'direct');
    expect(moves()).toEqual(['move 4242 direct']);
  });
});
