// Programs on one way (split rules by program, `netcli exec`): a cgroup v2 per way of the
// engine's own (`ferry-<id>/direct`, `ferry-<id>/tunnel`), which nftables matches sockets by
// (`socket cgroupv2`). A process put there takes its children with it; its sockets made from then
// on carry the cgroup.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { SplitVia } from '../../contracts/index.js';
import { checkOutput, runCommand, type CommandRunner } from '../../platform/os/command.js';
import { errnoCode, FerryError } from '../errors.js';

/** Where nft looks for a cgroup's path (`socket cgroupv2` is relative to it). */
export const NFT_CGROUP_ROOT = '/sys/fs/cgroup';

/** Where nft finds the ways' cgroups: their paths below NFT_CGROUP_ROOT, and their depth. */
export interface AppCgroupPaths {
  direct: string;
  tunnel: string;
  /** Their level in the cgroup v2 hierarchy (nft's `level`). */
  level: number;
}

export interface AppCgroups {
  /** Makes the ways' cgroups (once); not-supported without cgroup v2. */
  prepare(): Promise<AppCgroupPaths>;
  /** Puts a process (all its threads) in a way's cgroup. */
  move(pid: number, via: SplitVia): Promise<void>;
  /** The way a process is on now, null for none. */
  wayOf(pid: number): Promise<SplitVia | null>;
  /** Removes the cgroups if no process is left in them (else they stay, and hold); whether it did. */
  release(): Promise<boolean>;
}

/** The cgroup v2 mount under NFT_CGROUP_ROOT in a mountinfo text: where, and its root's path. */
export function cgroup2Mount(mountinfo: string): { mountPoint: string; root: string } | null {
  const found: { mountPoint: string; root: string }[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right || right.split(' ')[0] !== 'cgroup2') continue;
    const fields = left.split(' ');
    const root = fields[3];
    const mountPoint = fields[4]?.replace(/\\040/g, ' ');
    if (!root || !mountPoint) continue;
    if (mountPoint === NFT_CGROUP_ROOT || mountPoint.startsWith(`${NFT_CGROUP_ROOT}/`))
      found.push({ mountPoint, root });
  }
  // The shallowest: /sys/fs/cgroup itself (unified), else /sys/fs/cgroup/unified (hybrid).
  return found.sort((a, b) => a.mountPoint.length - b.mountPoint.length)[0] ?? null;
}

/** The engine's cgroups' name: one per state dir, so that engines side by side never share one. */
export function appCgroupBase(stateDir: string): string {
  return `ferry-${createHash('sha256').update(path.resolve(stateDir)).digest('hex').slice(0, 8)}`;
}

type Prepared = AppCgroupPaths & { dirs: Record<SplitVia, string> };

export class LinuxAppCgroups implements AppCgroups {
  #prepared: Prepared | null = null;

  constructor(
    private readonly stateDir: string,
    private readonly run: CommandRunner = runCommand,
    private readonly mountinfoFile = '/proc/self/mountinfo',
  ) {}

  prepare(): Promise<AppCgroupPaths> {
    return this.ready();
  }

  private async ready(): Promise<Prepared> {
    if (this.#prepared) return this.#prepared;
    let mount = cgroup2Mount(await readFile(this.mountinfoFile, 'utf8'));
    // A network namespace's `ip netns exec` mounts a fresh /sys without the cgroup mounts: the
    // same hierarchy is mounted again there (never over a directory that holds anything).
    if (!mount && (await readdir(NFT_CGROUP_ROOT).catch(() => null))?.length === 0) {
      checkOutput(
        await this.run('mount', ['-t', 'cgroup2', 'none', NFT_CGROUP_ROOT]),
        'mount',
        'mount the cgroup v2 hierarchy',
      );
      mount = cgroup2Mount(await readFile(this.mountinfoFile, 'utf8'));
    }
    if (!mount)
      throw new FerryError(
        'not-supported',
        'split rules by program need the cgroup v2 hierarchy, and this system has none mounted',
      );
    const base = appCgroupBase(this.stateDir);
    const dirs = {
      direct: path.join(mount.mountPoint, base, 'direct'),
      tunnel: path.join(mount.mountPoint, base, 'tunnel'),
    };
    try {
      for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
    } catch (e) {
      throw new FerryError(
        'os-command-failed',
        `could not make the programs' cgroups (${errnoCode(e) ?? 'error'})`,
        { cause: e },
      );
    }
    const below = path.relative(NFT_CGROUP_ROOT, mount.mountPoint);
    const depth = mount.root.split('/').filter(Boolean).length;
    this.#prepared = {
      direct: path.posix.join(below, base, 'direct'),
      tunnel: path.posix.join(below, base, 'tunnel'),
      level: depth + 2,
      dirs,
    };
    return this.#prepared;
  }

  async move(pid: number, via: SplitVia): Promise<void> {
    const { dirs } = await this.ready();
    try {
      await writeFile(path.join(dirs[via], 'cgroup.procs'), `${pid}\n`);
    } catch (e) {
      if (errnoCode(e) === 'ESRCH') throw new FerryError('config-invalid', `no process ${pid}`);
      throw new FerryError(
        'os-command-failed',
        `could not put the program on its way (${errnoCode(e) ?? 'error'})`,
        { cause: e },
      );
    }
  }

  async release(): Promise<boolean> {
    const prepared = this.#prepared;
    if (!prepared) return true;
    try {
      for (const dir of Object.values(prepared.dirs)) await rmdir(dir);
      await rmdir(path.dirname(prepared.dirs.direct));
      this.#prepared = null;
      return true;
    } catch {
      // A program is still on its way (EBUSY): its cgroup stays, and the table with it.
      return false;
    }
  }

  async wayOf(pid: number): Promise<SplitVia | null> {
    const prepared = await this.ready();
    const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
    const v2 = /^0::(.*)$/m.exec(text)?.[1] ?? '';
    const base = path.posix.basename(path.posix.dirname(prepared.direct));
    for (const via of ['direct', 'tunnel'] as const) if (v2.endsWith(`/${base}/${via}`)) return via;
    return null;
  }
}
