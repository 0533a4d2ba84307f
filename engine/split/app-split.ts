// Programs on one way: `netcli exec --via direct|tunnel -- CMD` (its own process put in the way's
// cgroup before it starts the program) and the split rules by program (`split add --app PATH`),
// whose processes, however started, are found by their executable and put there within a
// scan's interval. The programs' table (AppTable) makes the ways hold.
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';

import type { AppRule, SplitVia } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import type { AppCgroupPaths, AppCgroups } from '../os/app-cgroups.js';

/** A running process: its id and its executable's path (as /proc/PID/exe names it). */
export interface ProcessInfo {
  pid: number;
  exe: string;
}

/** The processes of this host (/proc). */
export interface ProcessTable {
  list(): Promise<ProcessInfo[]>;
  /** A process's arguments, null when it is gone. */
  argv(pid: number): Promise<string[] | null>;
  /** A path's real path (links resolved), null when there is nothing there. */
  realpath(file: string): Promise<string | null>;
}

export const LINUX_PROCESSES: ProcessTable = {
  async list() {
    const out: ProcessInfo[] = [];
    for (const name of await readdir('/proc').catch(() => [])) {
      if (!/^\d+$/.test(name)) continue;
      // Kernel threads and processes gone meanwhile have no executable to read.
      const exe = await readlink(`/proc/${name}/exe`).catch(() => null);
      if (exe) out.push({ pid: Number(name), exe: exe.replace(/ \(deleted\)$/, '') });
    }
    return out;
  },
  async argv(pid) {
    const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
    return text === null ? null : text.split('\0').filter((a) => a !== '');
  },
  realpath: (file) => realpath(file).catch(() => null),
};

export interface AppSplitDeps {
  cgroups: AppCgroups;
  table: { apply(paths: AppCgroupPaths): Promise<void>; remove(): Promise<void> };
  processes?: ProcessTable;
  /** How often the program rules' processes are looked for (ms). */
  scanMs?: number;
}

/** A program rule's processes are looked for this often: a program started otherwise is on its way within it. */
export const APP_SCAN_MS = 500;

/** Whether a process's arguments are `netcli exec --via ...`'s (the only process exec moves). */
export function isNetcliExec(argv: readonly string[]): boolean {
  const exec = argv.indexOf('exec');
  return exec >= 0 && argv.slice(exec).some((a) => a === '--via' || a.startsWith('--via='));
}

export class AppSplit {
  #paths: AppCgroupPaths | null = null;
  /** The program rules, by real path. */
  #rules = new Map<string, SplitVia>();
  #timer: NodeJS.Timeout | null = null;
  #scanning = false;
  readonly #processes: ProcessTable;

  constructor(private readonly deps: AppSplitDeps) {
    this.#processes = deps.processes ?? LINUX_PROCESSES;
  }

  /**
   * Puts a `netcli exec`'s own process on `via` (the program it then starts inherits it). Only
   * such a process: the engine is no tool for moving any process of this host.
   */
  async exec(pid: number, via: SplitVia): Promise<void> {
    const argv = await this.#processes.argv(pid);
    if (argv === null) throw new FerryError('config-invalid', `no process ${pid}`);
    if (!isNetcliExec(argv))
      throw new FerryError('config-invalid', `process ${pid} is not a netcli exec`);
    await this.ready();
    await this.deps.cgroups.move(pid, via);
  }

  /**
   * The program rules changed (or were read at start): their processes are looked for from now
   * on. A rule's program that is not there (yet) is looked for all the same.
   */
  async setRules(rules: readonly AppRule[]): Promise<void> {
    const resolved = new Map<string, SplitVia>();
    for (const r of rules) resolved.set((await this.#processes.realpath(r.app)) ?? r.app, r.via);
    this.#rules = resolved;
    if (resolved.size === 0) {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
      return;
    }
    await this.ready();
    await this.scan();
    this.#timer ??= setInterval(() => void this.scan(), this.deps.scanMs ?? APP_SCAN_MS);
    this.#timer.unref();
  }

  /** The cgroups and the programs' table, made once per engine run. */
  private async ready(): Promise<void> {
    if (this.#paths) return;
    const paths = await this.deps.cgroups.prepare();
    await this.deps.table.apply(paths);
    this.#paths = paths;
  }

  /** Puts each running process of a rule's program on the rule's way (if it is not yet). */
  private async scan(): Promise<void> {
    if (this.#scanning || this.#rules.size === 0) return;
    this.#scanning = true;
    try {
      for (const p of await this.#processes.list()) {
        const via = this.#rules.get(p.exe);
        if (via === undefined) continue;
        if ((await this.deps.cgroups.wayOf(p.pid)) === via) continue;
        // Gone meanwhile, or not ours to move: the next scan sees what is left.
        await this.deps.cgroups.move(p.pid, via).catch(() => undefined);
      }
    } finally {
      this.#scanning = false;
    }
  }

  /**
   * With no program rule, and no program on a way any more (every `netcli exec` ended), the
   * cgroups and the programs' table go (a disconnect asks); else both stay and hold.
   */
  async tidy(): Promise<void> {
    if (this.#rules.size === 0) await this.release();
  }

  /** Stops looking for programs, and releases what no program holds any more (shutdown). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.release();
  }

  /** A `tunnel` program still running keeps its cgroup, and the table: it gets no way out without us. */
  private async release(): Promise<void> {
    if (!this.#paths) return;
    if (await this.deps.cgroups.release()) {
      await this.deps.table.remove();
      this.#paths = null;
    }
  }
}
