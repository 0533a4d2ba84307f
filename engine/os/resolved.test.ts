// The home network's resolvers under systemd-resolved: what `resolvectl dns` names, but the
// tunnel's own link's, loopback and IPv6 ones, each once.
import { describe, expect, it } from 'vitest';

import type { CommandRunner } from '../../platform/os/command.js';
import { ResolvedResolver, resolvedHomeServers } from './resolved.js';

/** `resolvectl dns` on a laptop on Wi-Fi and Ethernet, connected (link 7 is the tunnel's). */
const OUTPUT = [
  'Global: 1.1.1.1#cloudflare-dns.com 2606:4700:4700::1111#cloudflare-dns.com',
  'Link 2 (enp0s31f6): 192.168.1.1 fe80::1%enp0s31f6',
  'Link 3 (wlp2s0): 192.168.1.1 10.0.0.53 2001:db8::53',
  'Link 5 (docker0):',
  'Link 6 (lo): 127.0.0.1',
  'Link 7 (fytmain0a1b2c): 10.64.0.1',
  '',
].join('\n');

describe('resolvedHomeServers', () => {
  it('takes the Global and the links’ IPv4 resolvers but the tunnel link’s, once each', () => {
    expect(resolvedHomeServers(OUTPUT, 'fytmain0a1b2c')).toEqual([
      '1.1.1.1',
      '192.168.1.1',
      '10.0.0.53',
    ]);
  });

  it('takes every link’s when none is skipped (nothing set yet)', () => {
    expect(resolvedHomeServers(OUTPUT, null)).toEqual([
      '1.1.1.1',
      '192.168.1.1',
      '10.0.0.53',
      '10.64.0.1',
    ]);
  });

  it('finds none in output without resolvers, or not resolvectl’s', () => {
    expect(resolvedHomeServers('Global:\nLink 2 (eth0):\n', null)).toEqual([]);
    expect(resolvedHomeServers('', null)).toEqual([]);
    expect(resolvedHomeServers('nameserver 192.0.2.53\nDNS Servers: 192.0.2.54\n', null)).toEqual(
      [],
    );
  });
});

describe('ResolvedResolver.homeServers', () => {
  function runner(exitCode = 0) {
    const calls: string[][] = [];
    const run: CommandRunner = async (_tool, args) => {
      calls.push([...args]);
      return {
        exitCode: args[0] === 'dns' && args.length === 1 ? exitCode : 0,
        stdout: args[0] === 'dns' && args.length === 1 ? OUTPUT : '',
        stderr: '',
      };
    };
    return { calls, run };
  }

  it('asks resolvectl, leaving the tunnel’s link out once it is set', async () => {
    const { calls, run } = runner();
    const r = new ResolvedResolver(run);
    expect(await r.homeServers()).toEqual(['1.1.1.1', '192.168.1.1', '10.0.0.53', '10.64.0.1']);
    expect(calls).toEqual([['dns']]);
    await r.set(['10.64.0.1'], 'fytmain0a1b2c');
    expect(await r.homeServers()).toEqual(['1.1.1.1', '192.168.1.1', '10.0.0.53']);
  });

  it('knows none when resolvectl fails', async () => {
    const r = new ResolvedResolver(runner(1).run);
    expect(await r.homeServers()).toEqual([]);
  });
});
