// netcli's commands run in process against the in-memory engine through the real host on a
// temp socket: what a person reads, and the stable JSON a script reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalConnectResponse, LocalStatus } from '../contracts/index.js';
import { FerryError } from '../engine/errors.js';
import { BLOCKED_HINT } from './commands/connection.js';
import { fakeIo } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli commands', () => {
  const cli = new CliHarness('ferry-cli-');
  const { ok, json, run, setUp } = cli;
  beforeEach(() => cli.start());
  afterEach(() => cli.close());

  it('init sets the service and protocol and says what comes next', async () => {
    const r = await ok(
      'init',
      '--protocol',
      'WireGuard',
      '--endpoint',
      'https://ferry.example/api/v1',
    );
    expect(r.stdout).toBe('Service   https://ferry.example\nProtocol  WireGuard\n');
    expect(r.stderr).toMatch(/netcli account create/);
    const j = await json('init', '--protocol', 'ferry', '--endpoint', 'https://10.0.0.1:8080');
    expect(j).toMatchObject({ config: { service: 'https://10.0.0.1:8080', protocol: 'ferry' } });
    expect(cli.engine.config.protocol).toBe('ferry');
  });

  it('init refuses plain http to a control plane on the network unless told --insecure', async () => {
    await ok('init', '--endpoint', 'https://ferry.example');
    const refused = await run(['init', '--endpoint', 'http://10.0.0.1:8080']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/service: the service URL must be https/);
    expect(cli.engine.config.service).toBe('https://ferry.example');

    const accepted = await ok('init', '--endpoint', 'http://10.0.0.1:8080', '--insecure');
    expect(accepted.stderr).toMatch(/^Warning: plain HTTP: anyone on the path reads/m);
    expect(cli.engine.config).toMatchObject({
      service: 'http://10.0.0.1:8080',
      service_insecure: true,
    });
    const status = await ok('status');
    expect(status.stdout).toMatch(/^Problem: the control plane is reached over plain HTTP/m);
    expect(await json('status')).toMatchObject({ service_insecure: true });

    // Loopback crosses no network: no --insecure needed, nothing to warn about.
    const local = await ok('init', '--endpoint', 'http://127.0.0.1:8080');
    expect(local.stderr).not.toMatch(/Warning/);
    expect(await json('status')).toMatchObject({ service_insecure: false });
  });

  it('init --ca-file sends the certificates of the file, read by netcli', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netcli-ca-'));
    try {
      const ca = path.join(dir, 'ca.pem');
      const pem = `-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n`;
      writeFileSync(
        ca,
        `# our CA\n${pem}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n`,
      );
      await ok('init', '--endpoint', 'https://ferry.example', '--ca-file', ca);
      // Only the certificate travels: never the key beside it in the file.
      expect(cli.engine.config.service_ca).toBe(pem);
      const missing = await run([
        'init',
        '--endpoint',
        'https://ferry.example',
        '--ca-file',
        path.join(dir, 'nope.pem'),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/cannot read .*nope\.pem \(ENOENT\)/);
      writeFileSync(path.join(dir, 'empty.pem'), 'nothing here');
      const empty = await run([
        'init',
        '--endpoint',
        'https://ferry.example',
        '--ca-file',
        path.join(dir, 'empty.pem'),
      ]);
      expect(empty.stderr).toMatch(/holds no PEM certificate/);
      // A new init without --ca-file trusts the system's CAs only again.
      await ok('init', '--endpoint', 'https://ferry.example');
      expect(cli.engine.config.service_ca).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('account create shows the number to keep; account shows plan, devices and usage', async () => {
    await ok('init', '--endpoint', 'https://ferry.example');
    const created = await ok('account', 'create', '--device-name', 'laptop');
    const number = [...cli.engine.accounts.keys()][0]!;
    const grouped = number.replace(/(\d{4})(?=\d)/g, '$1 ');
    expect(created.stdout).toContain(
      `Account ${grouped} created; this device is signed in as laptop.`,
    );

    const account = await ok('account');
    expect(account.stdout.split('\n')).toEqual([
      `Account  ${grouped}`,
      'Plan     Basic (free)',
      'Devices  1 of 5 (this one: laptop)',
      'Usage    1.5 GB of 10 GB in 2026-05',
      '',
    ]);
    expect(await json('account')).toMatchObject({
      account_number: number,
      plan: { id: 'basic' },
      devices: { used: 1, limit: 5 },
    });
  });

  it('asks for a password instead of taking it on the command line', async () => {
    await ok('init', '--endpoint', 'https://ferry.example');
    const io = fakeIo({ secrets: ['a long passphrase'] });
    const created = await cli.run(['account', 'create', '--password', '--json'], io);
    expect(created.code).toBe(0);
    const number = JSON.parse(created.stdout).account_number as string;
    await ok('logout');
    const wrong = await cli.run(
      ['login', number, '--password'],
      fakeIo({ secrets: ['not it at all'] }),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^netcli: wrong account number or password\nhint: .*--password/);
    const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ');
    const right = await cli.run(
      ['login', spaced, '--password'],
      fakeIo({ secrets: ['a long passphrase'] }),
    );
    expect(right.code).toBe(0);
    expect(right.stdout).toMatch(/^Signed in to account \d{4} \d{4} \d{4} \d{4}; this device/);
  });

  it('logout signs the device out', async () => {
    await setUp();
    const r = await ok('logout');
    expect(r.stdout).toBe('Signed out; this device was removed from the account.\n');
    expect(await json('logout')).toEqual({ signed_in: false });
    expect(cli.engine.session).toBeNull();
  });

  it('devices lists, renames and revokes', async () => {
    const session = await setUp();
    const other = await cli.engine.login({
      account_number: session.account_number,
      device_name: 'phone',
    });
    cli.engine.session = {
      account: cli.engine.accounts.get(session.account_number)!,
      deviceId: session.device.id,
    };
    // Each device's live state, as `tailscale status` lists its peers: this one's follows its
    // connection, the other's is the control plane's.
    const idle = await ok('devices');
    expect(idle.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+KIND\s+STATE\s+LATENCY\s+REGION$/);
    expect(idle.stdout).toMatch(
      new RegExp(
        `${session.device.id}\\s+fake-host\\s+laptop\\s+disconnected\\s+-\\s+-\\s+\\(this device\\)\\n`,
      ),
    );
    expect(idle.stdout).toMatch(
      new RegExp(`${other.device.id}\\s+phone\\s+laptop\\s+disconnected\\s+-\\s+-\\n`),
    );
    await ok('connect', '--region', 'asia-east');
    cli.engine.liveStates.set(other.device.id, {
      status: 'connecting',
      latency: null,
      region: 'global',
    });
    const list = await ok('devices');
    expect(list.stdout).toMatch(
      new RegExp(
        `${session.device.id}\\s+fake-host\\s+laptop\\s+connected\\s+12ms\\s+asia-east\\s+\\(this device\\)\\n`,
      ),
    );
    expect(list.stdout).toMatch(
      new RegExp(`${other.device.id}\\s+phone\\s+laptop\\s+connecting\\s+-\\s+global\\n`),
    );
    const listed = (await json('devices', 'list')).devices;
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: session.device.id,
          current: true,
          status: 'connected',
          latency: '12ms',
          region: 'asia-east',
        }),
        expect.objectContaining({
          id: other.device.id,
          current: false,
          status: 'connecting',
          latency: null,
          region: 'global',
        }),
      ]),
    );

    const renamed = await ok('devices', 'rename', other.device.id, 'old phone');
    expect(renamed.stdout).toBe(`Device ${other.device.id} is now called old phone.\n`);
    const revoked = await json('devices', 'revoke', other.device.id);
    expect(revoked).toEqual({ revoked: other.device.id, signed_in: true });
    const self = await ok('devices', 'revoke', session.device.id);
    expect(self.stdout).toMatch(/this one\) was removed from the account; it is signed out/);
  });

  it('connect prints the node, protocol, cipher, latency and exit IP before -> after', async () => {
    await setUp();
    const r = await ok('connect', '--region', 'asia-east', '--mode', 'secure');
    expect(r.stdout).toBe(
      [
        'Connected to asia-east (node hk-1) over WireGuard, ChaCha20-Poly1305',
        'Latency 12ms',
        'Exit IP 198.18.5.10 -> 198.19.5.20',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    cli.engine.connectNotices.push({
      code: 'obfuscation-on',
      message: 'UDP is blocked: the tunnel runs over TCP',
    });
    const verbose = await ok(
      'connect',
      '--protocol',
      'ferry',
      '--encryption',
      'aes-256-gcm',
      '--verbose',
    );
    expect(verbose.stdout).toMatch(/^Connected to global \(node zrh-1\) over Ferry, AES-256-GCM\n/);
    expect(verbose.stdout).toMatch(
      /\nRouting: lowest-latency\n {2}- zrh-1 has the lowest latency in global\n/,
    );
    expect(verbose.stdout).toMatch(/\nNote: UDP is blocked: the tunnel runs over TCP\n/);
    const answer = LocalConnectResponse.parse(await json('connect', '--usage', 'streaming'));
    expect(answer).toMatchObject({
      status: 'connected',
      mode: 'stream',
      exit_ip: { after: '198.19.5.20' },
    });
  });

  it('disconnect and status say where the connection is', async () => {
    await setUp();
    expect((await ok('status')).stdout).toBe('Disconnected\n');
    await ok('connect');
    const status = await ok('status');
    expect(status.stdout).toBe(
      'Connected to global (node zrh-1) over WireGuard, ChaCha20-Poly1305\nLatency 12ms · secure mode · interface ferry0\nTransport: using UDP, the first the autopilot tried\nKill switch on · everything tunneled · DNS 10.64.0.1 in the tunnel\n',
    );
    expect(LocalStatus.parse(await json('status'))).toMatchObject({
      status: 'connected',
      latency: '12ms',
    });
    expect((await ok('disconnect')).stdout).toBe('Disconnected\n');
    expect(await json('disconnect')).toMatchObject({ status: 'disconnected' });
  });

  it('a failed connect says so, and that the kill switch keeps traffic blocked until disconnect', async () => {
    await setUp();
    cli.engine.failNextConnect = new FerryError('node-unreachable', 'the node did not answer');
    const failed = await cli.run(['connect']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      [
        'netcli: the node did not answer',
        'hint: the node did not answer; try another region, or when UDP is blocked: netcli config set obfuscation on',
        `hint: ${BLOCKED_HINT}`,
        '',
      ].join('\n'),
    );
    expect((await ok('status')).stdout).toMatch(/blocked while the kill switch is on/);
    await ok('disconnect');
    // Without the kill switch nothing holds, and nothing is said of it.
    await ok('config', 'set', 'kill_switch', 'off');
    cli.engine.failNextConnect = new FerryError('node-unreachable', 'the node did not answer');
    const open = await cli.run(['connect']);
    expect(open.code).toBe(1);
    expect(open.stderr).not.toContain(BLOCKED_HINT);
  });

  it('connect --platform is stream mode for that platform, and status says so', async () => {
    await setUp();
    await ok('connect', '--platform', 'Netflix');
    expect((await ok('status')).stdout).toMatch(/stream mode \(netflix\)/);
    expect(await json('status')).toMatchObject({ mode: 'stream', platform: 'netflix' });
    const r = await cli.run(['connect', '--platform', 'nosuchflix']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no platform nosuchflix/);
  });

  it('status says how to set up an engine that is not', async () => {
    expect((await ok('status')).stdout).toBe(
      'Disconnected\nNot set up: netcli init --endpoint <url>\n',
    );
    await ok('init', '--endpoint', 'https://ferry.example');
    expect((await ok('status')).stdout).toMatch(/Not signed in: netcli account create/);
  });

  it('status --watch follows the changes until Ctrl-C', async () => {
    await setUp();
    const io = fakeIo();
    const watching = cli.run(['status', '--watch'], io);
    const lines = () => io.stdout.text.split('\n').filter(Boolean);
    await until(() => lines().length === 1);
    await ok('connect', '--region', 'asia-east');
    await until(() => lines().length === 3);
    io.interrupt();
    const r = await watching;
    expect(r.code).toBe(0);
    expect(lines().map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual([
      'Disconnected',
      'Connecting to asia-east',
      'Connected to asia-east (node hk-1) over WireGuard, ChaCha20-Poly1305 · 12ms',
    ]);
    await until(() => cli.engine.listenerCount === 0);

    const jsonIo = fakeIo();
    const jsonWatch = cli.run(['status', '--watch', '--json'], jsonIo);
    await until(() => jsonIo.stdout.text.includes('\n'));
    jsonIo.interrupt();
    expect((await jsonWatch).code).toBe(0);
    const first = JSON.parse(jsonIo.stdout.text.split('\n')[0]!);
    expect(first).toMatchObject({ event: 'status', data: { status: 'connected' } });
  });

  it('status --watch ends with exit 3 when the engine goes away', async () => {
    const io = fakeIo();
    const watching = cli.run(['status', '--watch'], io);
    await until(() => io.stdout.text.length > 0);
    await cli.stopHost();
    const r = await watching;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the engine ended the stream/);
  });

  it('config lists, gets and sets, saying what a live tunnel did', async () => {
    await setUp();
    const list = await ok('config');
    expect(list.stdout.split('\n').slice(0, 5)).toEqual([
      'KEY               VALUE',
      'service           https://ferry.example',
      'service_ca        none',
      'service_insecure  false',
      'service_key       none',
    ]);
    expect(await json('config', 'list')).toMatchObject({
      protocol: 'wireguard',
      kill_switch: true,
    });
    expect((await ok('config', 'get', 'kill-switch')).stdout).toBe('true\n');
    expect(await json('config', 'get', 'Protocol')).toEqual({ protocol: 'wireguard' });

    const saved = await ok('config', 'set', 'dns', '9.9.9.9');
    expect(saved.stdout).toBe(
      'dns: auto -> 9.9.9.9\nSaved; it takes effect at the next connect.\n',
    );
    await ok('connect');
    const live = await ok('config', 'set', 'protocol', 'ferry');
    expect(live.stdout).toBe(
      'protocol: wireguard -> ferry\nThe tunnel reconnected with the new settings.\n',
    );
    expect(await json('config', 'set', 'kill_switch', 'off')).toMatchObject({
      changed: ['kill_switch'],
      effect: 'applied',
    });
    expect((await ok('config', 'set', 'protocol', 'ferry')).stdout).toBe('Nothing changed.\n');
  });

  it('region lists regions and rules, adds and removes rules', async () => {
    await setUp();
    const added = await ok(
      'region',
      'add',
      '--area',
      'asia',
      '--strategy',
      'least-load',
      '--name',
      'near',
    );
    expect(added.stdout).toBe(
      'Region rule near: least-load in asia.\nUse it wherever a region goes: netcli connect --region near\n',
    );
    // The rule's name is its area's unless given (an area named like a region needs --name).
    expect(await json('region', 'add', '--area', 'europe')).toEqual({
      name: 'europe',
      area: 'europe',
      strategy: 'lowest-latency',
    });
    // A region's latency is the tunnel's while connected there (nothing else was measured).
    await ok('connect', '--region', 'asia-east');
    const list = await ok('region', 'list');
    expect(list.stdout).toMatch(
      /^REGION\s+NAME\s+AREA\s+LOAD\s+LATENCY\s+PLAN\s+STREAMING VERIFIED\n/,
    );
    expect(list.stdout).toMatch(/\nasia-east\s+Asia East\s+asia\s+20%\s+12ms\s+yes\s+netflix\n/);
    expect(list.stdout).toMatch(/\neurope-west\s+Europe West\s+europe\s+10%\s+-\s+no\s+-\n/);
    expect(list.stdout).toMatch(
      /\nRULE\s+AREA\s+STRATEGY\nnear\s+asia\s+least-load\neurope\s+europe\s+lowest-latency\n$/,
    );
    expect((await json('region')).rules).toHaveLength(2);
    expect((await ok('connect', '--region', 'near')).stdout).toMatch(/^Connected to asia-east/);
    expect((await ok('region', 'remove', 'near')).stdout).toBe('Region rule near removed.\n');
    expect(await json('region', 'remove', 'europe')).toEqual({ removed: 'europe' });
    expect(cli.engine.rules).toEqual([]);
  });

  it('latency-check prints a table sorted by latency with the method', async () => {
    await setUp();
    const r = await ok('latency-check', '--all', '--count', '3');
    expect(r.stdout.split('\n')).toEqual([
      'NODE   REGION     AVG   JITTER  LOSS  SAMPLES',
      'hk-1   asia-east  13ms  1.3ms   20%   3',
      'zrh-1  global     48ms  4.8ms   0%    3',
      'Method: authenticated UDP probe; took 0.8 s.',
      '',
    ]);
    const j = await json('latency-check', '--all');
    expect(j.results.map((x: { samples: number }) => x.samples)).toEqual([5, 5]);
  });
});

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
