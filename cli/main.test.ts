// netcli's command line as users of tailscale, docker and kubectl type it: the options every
// command takes (--json, --socket) before the command or after it, --version, and refusals that
// name only what netcli has.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIo } from './io.fake.js';
import { main } from './main.js';
import { CliHarness } from './testing/cli-harness.js';

/** Runs netcli exactly with these arguments (no --socket added). */
async function netcliExactly(args: string[], env: Record<string, string> = {}) {
  const io = fakeIo({ env });
  const code = await main(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('netcli options before or after the command', () => {
  const cli = new CliHarness('ferry-cli-main-');
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  it('takes --json and --socket before the command as after it', async () => {
    const after = await netcliExactly(['status', '--json', '--socket', cli.socketPath]);
    expect(after.code).toBe(0);
    for (const args of [
      ['--json', '--socket', cli.socketPath, 'status'],
      ['--socket', cli.socketPath, 'status', '--json'],
      ['--json', 'status', '--socket', cli.socketPath],
      [`--socket=${cli.socketPath}`, '--json', 'status'],
    ]) {
      const r = await netcliExactly(args);
      expect(r, args.join(' ')).toEqual(after);
    }
    expect(JSON.parse(after.stdout)).toMatchObject({ status: 'disconnected', signed_in: true });

    // A command below another, and one with arguments of its own.
    const devices = await netcliExactly(['--json', '--socket', cli.socketPath, 'devices', 'list']);
    expect(devices.code).toBe(0);
    expect(JSON.parse(devices.stdout).devices).toHaveLength(1);
    const config = await netcliExactly(['--socket', cli.socketPath, 'config', 'get', 'dns']);
    expect(config).toMatchObject({ code: 0, stdout: 'auto\n' });
    // Human output stays human when --json is given nowhere.
    const human = await netcliExactly(['--socket', cli.socketPath, 'status']);
    expect(human.stdout).toMatch(/^Disconnected\n/);
  });

  it('the option after the command wins over the one before; FERRY_SOCKET when neither', async () => {
    const nowhere = path.join(cli.dir, 'nothing-here.sock');
    const r = await netcliExactly(['--socket', nowhere, 'status', '--socket', cli.socketPath]);
    expect(r.code).toBe(0);
    const wrong = await netcliExactly(['--socket', nowhere, 'status']);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain(`no engine answers on ${nowhere}`);
    const env = await netcliExactly(['--json', 'status'], { FERRY_SOCKET: cli.socketPath });
    expect(env.code).toBe(0);
    expect(JSON.parse(env.stdout).status).toBe('disconnected');
  });

  it('lists the options every command takes in netcli --help', async () => {
    const r = await netcliExactly(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n {2}--json\b/);
    expect(r.stdout).toMatch(/\n {2}--socket <path>/);
    expect(r.stdout).toMatch(/\n {2}-V, --version\b/);
  });
});

describe('netcli --version', () => {
  it('prints the version of the package, and nothing else', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-V']) {
      const r = await netcliExactly([flag]);
      expect(r, flag).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });
});

describe('netcli refusals name only what it has', () => {
  it('an unknown option before the command is an unknown option, with the one meant', async () => {
    const r = await netcliExactly(['--jsn', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^netcli: unknown option '--jsn'\n\(Did you mean --json\?\)\n/);
  });

  it('an unknown command is suggested only real commands, whatever comes before it', async () => {
    for (const args of [['stauts'], ['--json', 'stauts'], ['--socket', '/tmp/x.sock', 'stauts']]) {
      const r = await netcliExactly(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(
        /^netcli: unknown command 'stauts'\n\(Did you mean status\?\)\n/,
      );
    }
    const far = await netcliExactly(['--json', 'xyzzy']);
    expect(far.stderr).toMatch(/^netcli: unknown command 'xyzzy'\n\(add --help for usage\)\n$/);
    // Nothing that is not a command is ever offered as one (commander once offered --emon).
    for (const args of [
      ['--', '--json'],
      ['--json', '--', '--socket'],
    ]) {
      const r = await netcliExactly(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).not.toMatch(/Did you mean.*--|--emon|--gion/);
    }
  });
});
