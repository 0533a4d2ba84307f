// The programs' table (`inet ferry_apps`): a `direct` program's packets marked to go around the
// tunnel, a `tunnel` program's connections marked to stay in it, and a `tunnel` program's packets
// dropped unless they leave by a tunnel (fail closed: no tunnel, no traffic). A table of its own
// beside `inet ferry`: it holds whether connected or not, also across a crash of the engine.
//
// In nft's text form: the JSON parser of the nft this runs on (1.0.6) does not take
// `socket cgroupv2`, which its text parser does.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { checkOutput, runCommand, type CommandRunner } from '../../platform/os/command.js';
import type { AppCgroupPaths } from '../os/app-cgroups.js';
import { TUNNEL_INTERFACE_PREFIX } from '../tunnel/names.js';
import { RULE_DIRECT_CT_MARK, RULE_TUNNEL_CT_MARK, SPLIT_FWMARK } from './firewall-policy.js';

export const APP_TABLE = { family: 'inet', name: 'ferry_apps' } as const;

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * The engine's resolvers: the system's (where every program asks) and each way's, where the
 * programs on that way are sent instead (a `direct` program's names asked at home, a `tunnel`
 * program's through the tunnel only).
 */
export interface AppResolvers {
  system: string;
  direct: string;
  tunnel: string;
}

function address(a: string): string {
  if (isIP(a) !== 4) throw new TypeError('a resolver of ours is an IPv4 address');
  return a;
}
/** A cgroup path as nft takes it: ours are letters, digits, dashes and slashes only. */
function quoted(cgroup: string): string {
  if (!/^[A-Za-z0-9/_-]+$/.test(cgroup)) throw new TypeError('a cgroup path of ours');
  return `"${cgroup}"`;
}

/**
 * The transaction that makes the table exactly this (replacing what was there, in one go):
 * - `route` (route hook, before the split's): a `direct` program's new packets get the split's
 *   mark (policy routing sends them to the main table) and its connection the direct rule's
 *   mark; a `tunnel` program's connection the tunnel rule's mark, by which the split leaves it
 *   in the tunnel wherever it goes;
 * - `guard` (filter hook, before the kill switch's): a `tunnel` program's packets that would
 *   leave by anything but a tunnel (or loopback: the engine's resolver) are dropped;
 * - `dns` (nat, output): a program's questions to the system resolver (the engine's) go to its
 *   way's own resolver of the engine's.
 */
export function appTableScript(paths: AppCgroupPaths, resolvers?: AppResolvers): string {
  const { family, name } = APP_TABLE;
  const socket = (via: 'direct' | 'tunnel') =>
    `socket cgroupv2 level ${paths.level} ${quoted(paths[via])}`;
  const redirect = (via: 'direct' | 'tunnel') =>
    `    ${socket(via)} ip daddr ${address(resolvers!.system)} meta l4proto { tcp, udp } th dport 53 dnat ip to ${address(resolvers![via])}`;
  const dns = resolvers
    ? [
        '  chain dns {',
        '    type nat hook output priority -100; policy accept;',
        redirect('direct'),
        redirect('tunnel'),
        '  }',
      ]
    : [];
  return [
    `add table ${family} ${name}`,
    `delete table ${family} ${name}`,
    `table ${family} ${name} {`,
    '  chain route {',
    '    type route hook output priority mangle - 10; policy accept;',
    `    ${socket('tunnel')} ct mark set ${hex(RULE_TUNNEL_CT_MARK)}`,
    `    ${socket('direct')} meta mark 0 meta mark set ${hex(SPLIT_FWMARK)} ct mark set ${hex(RULE_DIRECT_CT_MARK)}`,
    '  }',
    '  chain guard {',
    '    type filter hook output priority filter - 10; policy accept;',
    `    ${socket('tunnel')} oifname != "lo" oifname != "${TUNNEL_INTERFACE_PREFIX}*" counter drop`,
    '  }',
    ...dns,
    '}',
    '',
  ].join('\n');
}

/** Puts the programs' table in force (nft -f, one transaction) or takes it away. */
export class AppTable {
  constructor(
    private readonly run: CommandRunner = runCommand,
    private readonly resolvers?: AppResolvers,
  ) {}

  async apply(paths: AppCgroupPaths): Promise<void> {
    await this.transaction(
      appTableScript(paths, this.resolvers),
      'apply the programs\u2019 firewall table',
    );
  }

  async remove(): Promise<void> {
    const { family, name } = APP_TABLE;
    await this.transaction(
      `add table ${family} ${name}\ndelete table ${family} ${name}\n`,
      'remove the programs\u2019 firewall table',
    );
  }

  private async transaction(script: string, what: string): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'ferry-nft-'));
    try {
      const file = path.join(dir, 'apps.nft');
      await writeFile(file, script, { mode: 0o600 });
      checkOutput(await this.run('nft', ['-f', file]), 'nft', what);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
