// The programs' cgroups: found under the cgroup v2 mount nft looks in (a unified host's
// /sys/fs/cgroup, a hybrid host's /sys/fs/cgroup/unified, a container's with its own root), one
// name per state dir, and refused plainly on a host with no cgroup v2 at all.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { CommandOutput } from '../../platform/os/command.js';
import { FerryError } from '../errors.js';
import { LinuxAppCgroups, NFT_CGROUP_ROOT, appCgroupBase, cgroup2Mount } from './app-cgroups.js';

/** A Debian 12 or Fedora host: cgroup v2 only, at /sys/fs/cgroup. */
const UNIFIED = [
  '22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw',
  '26 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot',
  '28 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro',
].join('\n');

/** An older systemd host: the v1 controllers under /sys/fs/cgroup, v2 at .../unified. */
const HYBRID = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '',
].join('\n');

/** cgroup v1 only: no cgroup2 line at all. */
const V1_ONLY = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
].join('\n');

describe('cgroup2Mount', () => {
  it('finds a unified host’s cgroup v2 at /sys/fs/cgroup', () => {
    expect(NFT_CGROUP_ROOT).toBe('/sys/fs/cgroup');
    expect(cgroup2Mount(UNIFIED)).toEqual({ mountPoint: '/sys/fs/cgroup', root: '/' });
  });

  it('finds a hybrid host’s cgroup v2 at /sys/fs/cgroup/unified, not a v1 controller', () => {
    expect(cgroup2Mount(HYBRID)).toEqual({ mountPoint: '/sys/fs/cgroup/unified', root: '/' });
  });

  it('prefers /sys/fs/cgroup itself when cgroup v2 is mounted there and deeper', () => {
    const both = `${HYBRID.replace('- tmpfs tmpfs rw,mode=755', '- cgroup2 cgroup2 rw')}`;
    expect(cgroup2Mount(both)).toEqual({ mountPoint: '/sys/fs/cgroup', root: '/' });
  });

  it('finds none on a host without cgroup v2', () => {
    expect(cgroup2Mount(V1_ONLY)).toBeNull();
    expect(cgroup2Mount('')).toBeNull();
  });

  it('finds none when cgroup v2 is mounted only where nft does not look', () => {
    expect(cgroup2Mount('50 22 0:40 / /mnt/cg rw,relatime - cgroup2 none rw')).toBeNull();
    // A sibling whose name only starts like it is not under it.
    expect(cgroup2Mount('51 22 0:41 / /sys/fs/cgroup2 rw,relatime - cgroup2 none rw')).toBeNull();
    expect(
      cgroup2Mount(`${V1_ONLY}\n50 22 0:40 / /mnt/cg rw,relatime - cgroup2 none rw`),
    ).toBeNull();
  });

  it('gives a container’s mount root (its place in the host’s hierarchy)', () => {
    const container = [
      '1201 1190 0:26 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro',
      '1202 1201 0:30 /docker/3f2a9c /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate',
    ].join('\n');
    expect(cgroup2Mount(container)).toEqual({
      mountPoint: '/sys/fs/cgroup',
      root: '/docker/3f2a9c',
    });
  });
});

describe('appCgroupBase', () => {
  it('is one name per state dir, the same every time and for every spelling of the dir', () => {
    const base = appCgroupBase('/var/lib/ferry');
    expect(base).toMatch(/^ferry-[0-9a-f]{8}$/);
    expect(appCgroupBase('/var/lib/ferry')).toBe(base);
    expect(appCgroupBase('/var/lib/ferry/')).toBe(base);
    expect(appCgroupBase('/var/lib/other/../ferry')).toBe(base);
    expect(appCgroupBase('state')).toBe(appCgroupBase(path.resolve('state')));
  });

  it('differs for two state dirs (two engines side by side share no cgroup)', () => {
    const a = appCgroupBase('/var/lib/ferry');
    const b = appCgroupBase('/tmp/ferry-test-engine');
    expect(b).toMatch(/^ferry-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });
});

describe('LinuxAppCgroups', () => {
  let dir: string;
  let commands: string[][];
  const run = async (tool: string, args: readonly string[]): Promise<CommandOutput> => {
    commands.push([tool, ...args]);
    return { exitCode: 1, stdout: '', stderr: 'mount: not in this test\n' };
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-app-cgroups-'));
    commands = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses as not supported on a host with no cgroup v2 mounted (and mounts nothing over /sys/fs/cgroup)', async () => {
    // The test relies on this host's /sys/fs/cgroup holding something (v1 controllers or v2
    // files): over a directory that holds anything, nothing is mounted.
    expect(readdirSync(NFT_CGROUP_ROOT).length).toBeGreaterThan(0);
    const mountinfo = path.join(dir, 'mountinfo');
    writeFileSync(mountinfo, V1_ONLY);
    const cgroups = new LinuxAppCgroups(path.join(dir, 'state'), run, mountinfo);

    for (const attempt of [
      () => cgroups.prepare(),
      () => cgroups.move(4242, 'direct'),
      () => cgroups.wayOf(4242),
    ]) {
      const e = await attempt().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(FerryError);
      expect((e as FerryError).code).toBe('not-supported');
      expect((e as FerryError).message).toMatch(/cgroup v2/);
    }
    expect(commands).toEqual([]);
  });

  it('has nothing to release before it made anything', async () => {
    const mountinfo = path.join(dir, 'mountinfo');
    writeFileSync(mountinfo, V1_ONLY);
    const cgroups = new LinuxAppCgroups(path.join(dir, 'state'), run, mountinfo);
    expect(await cgroups.release()).toBe(true);
    expect(commands).toEqual([]);
  });
});
