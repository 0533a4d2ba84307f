// netcli split (list, add, remove) and netcli exec in process against the in-memory engine
// through the real host on a temp socket: what a person reads, the JSON a script reads, and
// exec asking the engine for its way before it runs the program, whose exit status it keeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { EXIT_NO_PROGRAM } from './commands/split.js';
import { fakeIo } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli split', () => {
  const cli = new CliHarness('ferry-cli-split-');
  const { ok, json, run } = cli;
  beforeEach(() => cli.start());
  afterEach(() => cli.close());

  it('adds a domain rule as a person types it, kept the engine’s way', async () => {
    const r = await ok('split', 'add', '--domain', '*.Example.CN.', '--via', 'Direct');
    expect(r.stdout).toBe(
      'Split rule added: example.cn and its subdomains go directly, around the tunnel.\n',
    );
    expect(await cli.engine.listSplitRules()).toEqual({
      rules: [{ domain: 'example.cn', via: 'direct' }],
    });
    expect(await json('split', 'add', '--domain', 'Video.Example', '--via', 'TUNNEL')).toEqual({
      domain: 'video.example',
      via: 'tunnel',
    });
  });

  it('adds a program rule', async () => {
    const r = await ok('split', 'add', '--app', '/usr/bin/firefox', '--via', 'tunnel');
    expect(r.stdout).toBe(
      'Split rule added: /usr/bin/firefox (and what it starts) goes through the tunnel only.\n',
    );
    expect(await json('split', 'add', '--app', '/usr/bin/curl', '--via', 'direct')).toEqual({
      app: '/usr/bin/curl',
      via: 'direct',
    });
    // Not a program's absolute path: refused, nothing kept.
    const relative = await run(['split', 'add', '--app', 'firefox', '--via', 'direct']);
    expect(relative.code).toBe(1);
    expect(relative.stderr).toMatch(/absolute path/);
    expect((await cli.engine.listSplitRules()).rules).toHaveLength(2);
  });

  it('lists both kinds of rule, a program’s marked as such', async () => {
    const empty = await ok('split');
    expect(empty.stdout.split('\n')).toEqual([
      'No split rules: only the split by country decides.',
      'Add one with: netcli split add --domain <domain>|--app <path> --via direct|tunnel',
      '',
    ]);
    expect(await json('split', 'list')).toEqual({ rules: [] });

    await ok('split', 'add', '--domain', 'example.cn', '--via', 'direct');
    await ok('split', 'add', '--app', '/usr/bin/firefox', '--via', 'tunnel');
    const lines = (await ok('split')).stdout.split('\n');
    expect(lines[0]).toBe('Split rules (on top of the split by country):');
    expect(lines).toHaveLength(4);
    expect(lines).toContain('  example.cn        direct');
    expect(lines).toContain('  /usr/bin/firefox  tunnel  (program)');
    expect((await ok('split', 'list')).stdout).toBe(lines.join('\n'));

    const listed = await json('split');
    expect(listed.rules).toHaveLength(2);
    expect(listed.rules).toEqual(
      expect.arrayContaining([
        { domain: 'example.cn', via: 'direct' },
        { app: '/usr/bin/firefox', via: 'tunnel' },
      ]),
    );
  });

  it('lists the domain rules before the program rules', async () => {
    // engine/split/split-rules.ts withSplitRule: "domains, then programs".
    await ok('split', 'add', '--app', '/usr/bin/firefox', '--via', 'tunnel');
    await ok('split', 'add', '--domain', 'example.cn', '--via', 'direct');
    expect((await ok('split')).stdout.split('\n').slice(1, 3)).toEqual([
      '  example.cn        direct',
      '  /usr/bin/firefox  tunnel  (program)',
    ]);
  });

  it('takes exactly one of --domain and --app', async () => {
    for (const args of [
      ['split', 'add', '--domain', 'example.cn', '--app', '/usr/bin/firefox', '--via', 'direct'],
      ['split', 'add', '--via', 'direct'],
      ['split', 'remove', '--domain', 'example.cn', '--app', '/usr/bin/firefox'],
      ['split', 'remove'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^netcli: name either --domain or --app$/m);
      expect(r.stdout).toBe('');
    }
    expect((await cli.engine.listSplitRules()).rules).toEqual([]);
  });

  it('removes a rule by what the person typed, and says which', async () => {
    await ok('split', 'add', '--domain', 'example.cn', '--via', 'direct');
    await ok('split', 'add', '--app', '/usr/bin/firefox', '--via', 'tunnel');
    const r = await ok('split', 'remove', '--domain', '*.Example.CN');
    expect(r.stdout).toBe('Split rule for example.cn removed.\n');
    expect(await json('split', 'remove', '--app', '/usr/bin/firefox')).toEqual({
      removed: '/usr/bin/firefox',
    });
    expect((await cli.engine.listSplitRules()).rules).toEqual([]);
  });

  it('refuses to remove a rule that is not there, naming those there are', async () => {
    await ok('split', 'add', '--domain', 'example.cn', '--via', 'direct');
    const r = await run(['split', 'remove', '--domain', 'x.cn']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^netcli: no split rule for domain x\.cn; the rules are for domain example\.cn$/m,
    );
    const app = await run(['split', 'remove', '--app', '/usr/bin/firefox', '--json']);
    expect(app.code).toBe(1);
    expect(app.stderr).toMatch(/no split rule for app \/usr\/bin\/firefox/);
    expect((await cli.engine.listSplitRules()).rules).toEqual([
      { domain: 'example.cn', via: 'direct' },
    ]);
  });

  it('points at the split rules, not the region rules, when a split rule is not there', async () => {
    const r = await run(['split', 'remove', '--domain', 'x.cn']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/netcli region list/);
    expect(r.stderr).toMatch(/hint: netcli split list shows the split rules/);
  });
});

describe('netcli exec', () => {
  const cli = new CliHarness('ferry-cli-exec-');
  beforeEach(() => cli.start());
  afterEach(() => cli.close());

  /** The engine's answer to splitExec recorded into `order` (the fake engine refuses it). */
  function engineAccepts(order: string[]) {
    return vi.spyOn(cli.engine, 'splitExec').mockImplementation(async (...args: unknown[]) => {
      // The fake engine's own splitExec takes nothing: the host hands it the request.
      const request = args[0] as { pid: number; via: string };
      order.push(`splitExec ${request.pid} ${request.via}`);
    });
  }

  const exec = (via: string, ...program: string[]) => [
    'exec',
    '--via',
    via,
    '--socket',
    cli.socketPath,
    '--',
    ...program,
  ];

  it('puts itself on the way before it runs the program, and exits as the program did', async () => {
    const order: string[] = [];
    engineAccepts(order);
    const io = fakeIo({
      runProgram: async (command, args) => {
        order.push(`run ${[command, ...args].join(' ')}`);
        return 3;
      },
    });
    const r = await cli.run(exec('Tunnel', 'curl', '-s', 'https://example.cn'), io);
    expect(r.code).toBe(3);
    expect(order).toEqual(['splitExec 4242 tunnel', 'run curl -s https://example.cn']);
    expect(io.programs).toEqual([['curl', '-s', 'https://example.cn']]);
    expect(r.stderr).toBe('');
  });

  it('exits 0 when the program does, and passes on its options', async () => {
    const order: string[] = [];
    engineAccepts(order);
    const io = fakeIo();
    const r = await cli.run(exec('direct', 'ls', '--socket', '-la'), io);
    expect(r.code).toBe(0);
    expect(order).toEqual(['splitExec 4242 direct']);
    expect(io.programs).toEqual([['ls', '--socket', '-la']]);
  });

  it('takes --via=WAY as well', async () => {
    const order: string[] = [];
    engineAccepts(order);
    const io = fakeIo();
    const r = await cli.run(
      ['exec', '--via=direct', '--socket', cli.socketPath, '--', 'curl', 'example.cn'],
      io,
    );
    expect(r.code).toBe(0);
    expect(order).toEqual(['splitExec 4242 direct']);
    expect(io.programs).toEqual([['curl', 'example.cn']]);
  });

  it('exits 127 naming the program when there is none of that name', async () => {
    engineAccepts([]);
    const io = fakeIo({
      runProgram: async () => {
        throw Object.assign(new Error('spawn nosuchprogram ENOENT'), { code: 'ENOENT' });
      },
    });
    const r = await cli.run(exec('direct', 'nosuchprogram', '--flag'), io);
    expect(EXIT_NO_PROGRAM).toBe(127);
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/^netcli: no program nosuchprogram$/m);
  });

  it('runs nothing when the engine refuses', async () => {
    // The fake engine refuses as an engine without cgroup v2 does: not-supported.
    const io = fakeIo();
    const r = await cli.run(exec('direct', 'curl', 'example.cn'), io);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^netcli: the fake engine runs no programs/m);
    expect(io.programs).toEqual([]);

    // A way that is none: refused by the engine's API, nothing run either.
    const spy = engineAccepts([]);
    const wrongIo = fakeIo();
    const wrong = await cli.run(exec('sideways', 'curl'), wrongIo);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^hint: via: one of direct, tunnel$/m);
    expect(spy).not.toHaveBeenCalled();
    expect(wrongIo.programs).toEqual([]);
  });
});
