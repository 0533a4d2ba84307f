// The programs' table: replaced in one transaction, its chains ahead of the split's and the kill
// switch's, a `tunnel` program fail closed (out by a tunnel or loopback only), a `direct`
// program's unmarked packets sent around the tunnel; nothing from a path gets into the script;
// nft -f run on a private file that is gone afterwards.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import type { CommandOutput } from '../../platform/os/command.js';
import type { AppCgroupPaths } from '../os/app-cgroups.js';
import { FerryError } from '../errors.js';
import { TUNNEL_INTERFACE_PREFIX } from '../tunnel/names.js';
import { APP_TABLE, AppTable, appTableScript } from './app-table.js';
import { protectionTable, type ProtectionPolicy } from './firewall-policy.js';

const PATHS: AppCgroupPaths = {
  direct: 'unified/ferry-1a2b3c4d/direct',
  tunnel: 'unified/ferry-1a2b3c4d/tunnel',
  level: 2,
};

/** nft's priority names (inet family) as numbers. */
const PRIORITY: Record<string, number> = { raw: -300, mangle: -150, filter: 0, security: 50 };

function priorityOf(script: string, chain: string): { type: string; hook: string; prio: number } {
  const body = script.split(`chain ${chain} {`)[1]!;
  const m = /type (\w+) hook (\w+) priority (\w+)(?: ([+-]) (\d+))?;/.exec(body)!;
  expect(m, `chain ${chain} has a hook`).not.toBeNull();
  const base = PRIORITY[m[3]!]!;
  const offset = m[4] ? Number(`${m[4]}${m[5]}`) : 0;
  return { type: m[1]!, hook: m[2]!, prio: base + offset };
}

/** The rule lines of a chain (no hook line, no braces). */
function rulesOf(script: string, chain: string): string[] {
  const body = script.split(`chain ${chain} {`)[1]!.split('}')[0]!;
  return body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('type '));
}

/** The protection table's chains by name, with their priority. */
function protectionChains(): Map<string, { hook: string; prio: number }> {
  const policy: ProtectionPolicy = {
    block: true,
    blockIpv6: true,
    nodes: [{ address: '198.51.100.7', port: 51820, protocol: 'udp' }],
    probes: [],
    controlPlane: [{ address: '203.0.113.5', port: 443, protocol: 'tcp' }],
    lan: null,
    dns: ['10.64.0.1'],
    split: { route: [], private: [] },
    rules: 1,
  };
  const chains = new Map<string, { hook: string; prio: number }>();
  for (const o of protectionTable(policy)) {
    const c = (o as { chain?: { name: string; hook?: string; prio?: number } }).chain;
    if (c?.hook !== undefined && c.prio !== undefined)
      chains.set(c.name, { hook: c.hook, prio: c.prio });
  }
  return chains;
}

describe('appTableScript', () => {
  it('replaces the table in one script: made if missing, deleted, then written whole', () => {
    expect(APP_TABLE).toEqual({ family: 'inet', name: 'ferry_apps' });
    const lines = appTableScript(PATHS).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'add table inet ferry_apps',
      'delete table inet ferry_apps',
      'table inet ferry_apps {',
    ]);
    // One table only: nothing else is touched.
    expect(lines.filter((l) => /^(add|delete|flush)?\s*table /.test(l))).toHaveLength(3);
    expect(lines.filter((l) => /\btable\b/.test(l) && !l.includes('ferry_apps'))).toEqual([]);
  });

  it('puts its chains ahead of the split’s route chain and the kill switch', () => {
    const script = appTableScript(PATHS);
    const chains = protectionChains();
    const route = priorityOf(script, 'route');
    expect(route).toMatchObject({ type: 'route', hook: 'output', prio: -160 });
    expect(route.prio).toBeLessThan(chains.get('split_route')!.prio);
    expect(chains.get('split_route')!.hook).toBe('output');

    const guard = priorityOf(script, 'guard');
    expect(guard).toMatchObject({ type: 'filter', hook: 'output', prio: -10 });
    expect(guard.prio).toBeLessThan(chains.get('guard_out')!.prio);
    expect(chains.get('guard_out')!.hook).toBe('output');
  });

  it('drops a tunnel program’s packets unless they leave by a tunnel or loopback', () => {
    expect(TUNNEL_INTERFACE_PREFIX).toBe('fyt');
    const guard = rulesOf(appTableScript(PATHS), 'guard');
    expect(guard).toEqual([
      'socket cgroupv2 level 2 "unified/ferry-1a2b3c4d/tunnel" oifname != "lo" oifname != "fyt*" counter drop',
    ]);
    // The direct program is not held back.
    expect(guard.join('\n')).not.toContain('/direct');
  });

  it('marks a direct program’s unmarked packets around the tunnel and a tunnel program’s connections to stay in it', () => {
    const route = rulesOf(appTableScript(PATHS), 'route');
    expect(route).toEqual([
      'socket cgroupv2 level 2 "unified/ferry-1a2b3c4d/tunnel" ct mark set 0x6669',
      'socket cgroupv2 level 2 "unified/ferry-1a2b3c4d/direct" meta mark 0 meta mark set 0x6666 ct mark set 0x666a',
    ]);
  });

  it('takes the level and the paths from the cgroups it is given', () => {
    const script = appTableScript({
      direct: 'ferry-00ff00ff/direct',
      tunnel: 'ferry-00ff00ff/tunnel',
      level: 5,
    });
    const sockets = script.match(/socket cgroupv2 level \d+ "[^"]*"/g);
    expect(sockets).toEqual([
      'socket cgroupv2 level 5 "ferry-00ff00ff/tunnel"',
      'socket cgroupv2 level 5 "ferry-00ff00ff/direct"',
      'socket cgroupv2 level 5 "ferry-00ff00ff/tunnel"',
    ]);
    expect(script).not.toContain('unified');
  });

  it('sends a program’s questions to the system resolver to its way’s own resolver', () => {
    const script = appTableScript(PATHS, {
      system: '127.102.121.53',
      direct: '127.102.121.54',
      tunnel: '127.102.121.55',
    });
    const dns = script.slice(script.indexOf('chain dns {'));
    expect(dns).toContain('type nat hook output priority -100; policy accept;');
    expect(dns).toMatch(
      /socket cgroupv2 level 2 "[^"]+\/direct" ip daddr 127\.102\.121\.53 meta l4proto \{ tcp, udp \} th dport 53 dnat ip to 127\.102\.121\.54/,
    );
    expect(dns).toMatch(
      /"[^"]+\/tunnel" ip daddr 127\.102\.121\.53 .* dnat ip to 127\.102\.121\.55/,
    );
    // Without resolvers of the engine's (none running) there is nothing to send anywhere.
    expect(appTableScript(PATHS)).not.toContain('chain dns');
    expect(() =>
      appTableScript(PATHS, { system: '127.0.0.1; drop', direct: 'x', tunnel: 'y' }),
    ).toThrow(TypeError);
  });

  it('refuses a cgroup path that could put anything else into the script', () => {
    for (const bad of [
      'ferry-1/direct" accept; #',
      'ferry 1/direct',
      'ferry-1/direct; delete table inet ferry',
      'ferry-1/direct\ndelete table inet ferry',
      "ferry-1/dir'ect",
      '',
    ]) {
      expect(() => appTableScript({ ...PATHS, direct: bad }), JSON.stringify(bad)).toThrow(
        TypeError,
      );
      expect(() => appTableScript({ ...PATHS, tunnel: bad }), JSON.stringify(bad)).toThrow(
        TypeError,
      );
    }
  });
});

describe('AppTable', () => {
  /** A runner that keeps each call and the file nft was given, read while nft would read it. */
  function recorder(answer: CommandOutput = { exitCode: 0, stdout: '', stderr: '' }) {
    const calls: { tool: string; args: string[]; script: string; mode: number }[] = [];
    const run = async (tool: string, args: readonly string[]): Promise<CommandOutput> => {
      const file = args[args.length - 1]!;
      calls.push({
        tool,
        args: [...args],
        script: readFileSync(file, 'utf8'),
        mode: statSync(file).mode & 0o777,
      });
      return answer;
    };
    return { calls, run };
  }

  it('applies the table with nft -f on a private file, gone afterwards', async () => {
    const { calls, run } = recorder();
    await new AppTable(run).apply(PATHS);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.tool).toBe('nft');
    expect(call!.args).toHaveLength(2);
    expect(call!.args[0]).toBe('-f');
    expect(call!.script).toBe(appTableScript(PATHS));
    expect(call!.mode).toBe(0o600);
    expect(existsSync(call!.args[1]!)).toBe(false);
  });

  it('removes the table (whether it is there or not) in one transaction', async () => {
    const { calls, run } = recorder();
    await new AppTable(run).remove();
    expect(calls.map((c) => [c.tool, c.args[0]])).toEqual([['nft', '-f']]);
    expect(calls[0]!.script).toBe('add table inet ferry_apps\ndelete table inet ferry_apps\n');
    expect(existsSync(calls[0]!.args[1]!)).toBe(false);
  });

  it('rejects with a FerryError when nft fails, and leaves no file behind', async () => {
    const { calls, run } = recorder({
      exitCode: 1,
      stdout: '',
      stderr: 'Error: syntax error, unexpected string\n',
    });
    for (const attempt of [
      () => new AppTable(run).apply(PATHS),
      () => new AppTable(run).remove(),
    ]) {
      const e = await attempt().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(FerryError);
      expect((e as FerryError).code).toBe('os-command-failed');
      expect((e as FerryError).message).toMatch(/nft exited with 1: Error: syntax error/);
    }
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(existsSync(c.args[1]!)).toBe(false);
  });
});
