// The system resolver through systemd-resolved (where it runs): the tunnel's resolver set on the
// tunnel's link as the route for every domain; resolved forgets it with the link, so a crash
// leaves nothing behind.
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { isIP } from 'node:net';

import { checkInterfaceName } from '../../platform/os/arguments.js';
import { checkOutput, runCommand, type CommandRunner } from '../../platform/os/command.js';
import type { Resolver } from './resolver.js';

/** resolvectl's argv for `servers` on `link`, as the only resolver of every domain. */
export function resolvedSetCommands(servers: readonly string[], link: string): string[][] {
  checkInterfaceName(link);
  for (const s of servers) if (isIP(s) === 0) throw new TypeError('a resolver is an IP address');
  return [
    ['dns', link, ...servers],
    // `~.`: this link's servers answer for every domain, not only its own.
    ['domain', link, '~.'],
    ['default-route', link, 'yes'],
  ];
}

/**
 * The IPv4 resolvers of `resolvectl dns`'s output (`Global: ...`, `Link 2 (eth0): ...`) but
 * those of `skipLink` (the tunnel's, while set) and loopback ones, once each.
 */
export function resolvedHomeServers(output: string, skipLink: string | null): string[] {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    const m = /^(Global|Link \d+ \(([^)]+)\)):(.*)$/.exec(line.trim());
    if (!m || (skipLink !== null && m[2] === skipLink)) continue;
    for (const word of m[3]!.trim().split(/\s+/)) {
      const address = word.split('#')[0]!;
      if (isIP(address) !== 4 || address.startsWith('127.') || out.includes(address)) continue;
      out.push(address);
    }
  }
  return out;
}

export class ResolvedResolver implements Resolver {
  #link: string | null = null;

  async homeServers(): Promise<string[]> {
    const out = await this.run('resolvectl', ['dns']);
    if (out.exitCode !== 0) return [];
    return resolvedHomeServers(out.stdout, this.#link);
  }

  constructor(private readonly run: CommandRunner = runCommand) {}

  async set(servers: readonly string[], interfaceName: string): Promise<void> {
    for (const args of resolvedSetCommands(servers, interfaceName))
      checkOutput(await this.run('resolvectl', args), 'resolvectl', 'set the system resolver');
    this.#link = interfaceName;
  }

  async restore(): Promise<void> {
    const link = this.#link;
    if (link === null) return;
    const out = await this.run('resolvectl', ['revert', link]);
    // The link went with the tunnel: resolved forgot its settings with it.
    if (out.exitCode !== 0 && /not found|No such device/i.test(out.stderr)) {
      this.#link = null;
      return;
    }
    checkOutput(out, 'resolvectl', 'restore the system resolver');
    this.#link = null;
  }
}

/** Whether this host's resolv.conf is systemd-resolved's and resolved is running. */
export function usesSystemdResolved(file = '/etc/resolv.conf'): boolean {
  try {
    if (!lstatSync(file).isSymbolicLink()) return false;
    return (
      readlinkSync(file).includes('/run/systemd/resolve/') &&
      existsSync('/run/systemd/resolve/io.systemd.Resolve')
    );
  } catch {
    return false;
  }
}
