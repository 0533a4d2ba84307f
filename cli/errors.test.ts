// netcli's failures: `netcli: <detail>` and `hint:` lines on stderr, nothing on stdout, and the
// exit codes (1 refused, 2 usage, 3 no engine).
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../contracts/index.js';
import { describeFailure } from './errors.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli failures', () => {
  const cli = new CliHarness('ferry-cli-');
  const { netcli } = cli;
  beforeEach(() => cli.start());
  afterEach(() => cli.close());

  it('says how to start an engine that does not answer, with exit 3', async () => {
    await cli.stopHost();
    for (const args of [['status'], ['connect', '--json']]) {
      const r = await netcli(...args);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `netcli: no engine answers on ${cli.socketPath}\nhint: is the engine running? start it with: sudo netcli daemon --socket ${cli.socketPath}\n`,
      );
    }
  });

  it('takes the socket from FERRY_SOCKET when --socket is not given', async () => {
    const { fakeIo } = await import('./io.fake.js');
    const { main } = await import('./main.js');
    const io = fakeIo({ env: { FERRY_SOCKET: cli.socketPath } });
    expect(await main(['status', '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout.text)).toMatchObject({ status: 'disconnected' });
    const elsewhere = fakeIo({ env: { FERRY_SOCKET: path.join(cli.dir, 'none.sock') } });
    expect(await main(['status'], elsewhere)).toBe(3);
    expect(elsewhere.stderr.text).toContain(path.join(cli.dir, 'none.sock'));
  });

  it('says what to set up before connecting', async () => {
    const notSetUp = await netcli('connect');
    expect(notSetUp.code).toBe(1);
    expect(notSetUp.stderr).toBe(
      'netcli: no control plane is configured\nhint: netcli init --endpoint <url> [--protocol wireguard|ferry]\n',
    );
    await netcli('init', '--endpoint', 'https://ferry.example');
    const notSignedIn = await netcli('connect');
    expect(notSignedIn.code).toBe(1);
    expect(notSignedIn.stderr).toBe(
      'netcli: this device is not signed in\nhint: netcli account create or netcli login <number>\n',
    );
  });

  it('lists the allowed values of each refused field', async () => {
    await netcli('init', '--endpoint', 'https://ferry.example');
    await netcli('account', 'create');
    const r = await netcli('connect', '--protocol', 'openvpn', '--encryption', 'rot13');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^netcli: invalid body: (encryption, protocol|protocol, encryption)\n/,
    );
    expect(r.stderr).toContain('hint: protocol: one of wireguard, ferry\n');
    expect(r.stderr).toContain('hint: encryption: one of AES-256-GCM, ChaCha20-Poly1305\n');
    const setting = await netcli('config', 'set', 'obfuscation', 'sometimes');
    expect(setting.code).toBe(1);
    expect(setting.stderr).toContain('hint: obfuscation: one of auto, on, off, tcp, tls\n');
    const key = await netcli('config', 'get', 'colour');
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(
      /^netcli: unknown setting "colour"\nhint: the settings are service, service_ca, service_insecure, service_key, api_access, mode, /,
    );
  });

  it('passes on the control plane’s refusals with their hints', async () => {
    await netcli('init', '--endpoint', 'https://ferry.example');
    const created = JSON.parse((await netcli('account', 'create', '--json')).stdout);
    for (let i = 1; i < 5; i++) await cli.engine.login({ account_number: created.account_number });
    const full = await netcli('login', created.account_number);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^netcli: the plan allows 5 devices\n/);
    expect(full.stderr).toMatch(/hint: revoke a device .*netcli devices revoke <id>\n/);
    expect(full.stderr).toMatch(/hint: the account's devices: dev\d+ \(fake-host\), /);

    const missing = await netcli('region', 'remove', 'nope');
    expect(missing.stderr).toBe(
      'netcli: there is no region rule named nope\nhint: netcli region list shows the rules\n',
    );
    const notInPlan = await netcli('connect', '--region', 'europe-west');
    expect(notInPlan.stderr).toMatch(/hint: netcli region list shows the regions your plan allows/);

    cli.engine.listRegions = async () => {
      throw new ApiError({
        code: 'unreachable',
        detail: 'no answer from the server',
        route: 'GET /regions',
      });
    };
    const away = await netcli('region');
    expect(away.code).toBe(1);
    expect(away.stderr).toBe(
      'netcli: the control plane did not answer (no answer from the server)\nhint: check the service URL (netcli config get service) and the network\n',
    );
  });

  it('leaves usage errors to commander, with exit 2', async () => {
    for (const args of [
      ['bogus'],
      ['status', '--nope'],
      ['devices', 'rename', 'dev1'],
      ['latency-check', '--count', 'lots'],
      ['init', '--protocol', 'wireguard'],
      ['region', 'add', '--strategy', 'least-load'],
    ]) {
      const r = await netcli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^netcli: .*\n(?:.*\n)?\(add --help for usage\)\n$/);
    }
    const help = await netcli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: netcli \[options\] \[command\]/);
    for (const command of [
      'daemon',
      'init',
      'account',
      'login',
      'logout',
      'devices',
      'connect',
      'disconnect',
      'status',
      'config',
      'region',
      'latency-check',
    ])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
  });

  it('cancels a connect on Ctrl-C, and the engine stops connecting', async () => {
    const { fakeIo } = await import('./io.fake.js');
    await netcli('init', '--endpoint', 'https://ferry.example');
    await netcli('account', 'create');
    const held = cli.engine.holdConnect();
    const io = fakeIo();
    const connecting = cli.run(['connect'], io);
    await held.started;
    io.interrupt();
    const r = await connecting;
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('netcli: cancelled\n');
    await expect.poll(() => cli.engine.abortedConnects).toBe(1);
  });

  it('names a socket it may not use', () => {
    const denied = new ApiError({
      code: 'unreachable',
      detail: 'no answer from the server (EACCES)',
      route: 'GET /status',
    });
    expect(describeFailure(denied, '/run/ferry/engine.sock')).toEqual({
      message: 'permission denied on /run/ferry/engine.sock',
      hints: [
        'run as root, or join the group ferry: sudo usermod -aG ferry $USER (then log in again)',
      ],
      exitCode: 3,
    });
  });

  it('gives no hint that only says the failure’s own line again', () => {
    const refused = new ApiError({
      code: 'config-invalid',
      detail: 'the service URL must be https',
      route: 'POST /init',
      status: 400,
      errors: [
        { field: 'service', message: 'the service URL must be https' },
        { field: 'mtu', message: 'mtu must be auto or 1280..1500' },
      ],
    });
    expect(describeFailure(refused, '/run/ferry/engine.sock')).toEqual({
      message: 'the service URL must be https',
      hints: ['mtu: mtu must be auto or 1280..1500'],
      exitCode: 1,
    });
  });
});
