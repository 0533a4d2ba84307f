// netcli devices add, in process against the in-memory engine through the real host on a temp
// socket: the QR code and what to do with it, the stable JSON, the files it writes (0600, never
// over an existing one), and the refusals, which leave the account as it was.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAddDeviceResponse } from '../contracts/index.js';
import { fakeIo, FakeOutput } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli devices add', () => {
  const cli = new CliHarness('ferry-cli-add-');
  const { netcli, ok, json } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  const accountDevices = () => cli.engine.session!.account.devices.map((d) => d.name);
  const mode = async (file: string) => (await stat(file)).mode & 0o777;

  it('shows the QR code of the config, how to scan it, and what it holds', async () => {
    const out = path.join(cli.dir, 'pixel.conf');
    const r = await ok('devices', 'add', '--kind', 'phone', '--name', 'pixel', '--out', out);
    const key = cli.engine.addedDeviceKeys[0]!;
    const [device] = cli.engine.session!.account.devices.slice(-1);
    // Not a terminal: the config's code in plain block characters, no colour codes.
    const config = await readFile(out, 'utf8');
    const code = await QRCode.toString(config, { type: 'utf8', errorCorrectionLevel: 'L' });
    expect(r.stdout.startsWith(code.replace(/\n+$/, '\n'))).toBe(true);
    expect(r.stdout).not.toContain('\u001b[');
    expect(r.stdout.split('\n').filter((l) => /[█▀▄]/.test(l)).length).toBeGreaterThan(20);
    expect(r.stdout).toContain(
      'Scan this with the WireGuard app on the phone: + → Scan from QR code (iOS: + → Create from QR code).\n',
    );
    expect(r.stdout).toContain(
      `pixel (phone) is on the account as ${device!.id}; its tunnel goes to`,
    );
    expect(r.stdout).toContain(`netcli devices revoke ${device!.id} removes it`);
    // The key itself is in the code only, never in the words around it.
    expect(r.stdout).not.toContain(key);
    expect(r.stderr).toBe('');
    expect(accountDevices()).toEqual(['fake-host', 'pixel']);
  });

  it('draws the code dark on light on a terminal, whatever its theme', async () => {
    const io = fakeIo();
    io.stdout = new FakeOutput(true);
    const out = path.join(cli.dir, 'tab.conf');
    const r = await cli.run(
      ['devices', 'add', '--kind', 'tablet', '--name', 'tab', '--out', out],
      io,
    );
    expect(r.code).toBe(0);
    const config = await readFile(out, 'utf8');
    const code = await QRCode.toString(config, {
      type: 'terminal',
      small: true,
      errorCorrectionLevel: 'L',
    });
    // White background, black foreground on every row, as qrcode's terminal renderer sets them.
    expect(code.startsWith('\u001b[47m\u001b[30m')).toBe(true);
    expect(r.stdout.startsWith(code.replace(/\n+$/, '\n'))).toBe(true);
  });

  it('gives the device and its config as JSON, the key in the config', async () => {
    const answer = await json(
      'devices',
      'add',
      '--kind',
      'Tablet',
      '--name',
      'tab',
      '--region',
      'global',
      '--allow-lan',
      '--dns',
      '9.9.9.9',
      '2620:fe::fe',
    );
    expect(LocalAddDeviceResponse.parse(answer)).toEqual(answer);
    expect(Object.keys(answer).sort()).toEqual(['config', 'device', 'region']);
    expect(answer).toMatchObject({ device: { name: 'tab', kind: 'tablet' }, region: 'global' });
    expect(answer.config).toContain(`PrivateKey = ${cli.engine.addedDeviceKeys[0]}\n`);
    expect(answer.config).toContain('DNS = 9.9.9.9, 2620:fe::fe\n');
    expect(answer.config).toContain('10.64.0.1/32');
  });

  it('writes the config and its QR code on request, 0600, and the PNG is the config’s code', async () => {
    const out = path.join(cli.dir, 'phone.conf');
    const png = path.join(cli.dir, 'phone.png');
    const r = await ok(
      'devices',
      'add',
      '--kind',
      'phone',
      '--name',
      'p',
      '--out',
      out,
      '--qr',
      png,
    );
    const [key] = cli.engine.addedDeviceKeys;
    const config = await readFile(out, 'utf8');
    expect(config).toMatch(/^\[Interface\]\n/);
    expect(config).toContain(`PrivateKey = ${key}\n`);
    expect(await mode(out)).toBe(0o600);
    expect(await mode(png)).toBe(0o600);
    const image = await readFile(png);
    expect(image.subarray(0, 8)).toEqual(Buffer.from('89504e470d0a1a0a', 'hex'));
    expect(image).toEqual(
      await QRCode.toBuffer(config, {
        type: 'png',
        errorCorrectionLevel: 'M',
        margin: 4,
        scale: 8,
      }),
    );
    expect(r.stdout).toContain(`Its config is in ${out} (readable by you only).\n`);
    expect(r.stdout).toContain(`Its QR code is in ${png} (readable by you only).\n`);

    const svg = path.join(cli.dir, 'tablet.SVG');
    const withSvg = await json('devices', 'add', '--kind', 'tablet', '--name', 't', '--qr', svg);
    const drawn = await readFile(svg, 'utf8');
    expect(drawn).toMatch(/^<svg /);
    expect(drawn).toBe(
      await QRCode.toString(withSvg.config, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }),
    );
    expect(await mode(svg)).toBe(0o600);
    // Nothing but the files themselves was left in the directory.
    expect((await readdir(cli.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses before adding anything: an image it cannot write, a file that exists, a bad kind', async () => {
    const jpg = await netcli('devices', 'add', '--kind', 'phone', '--name', 'p', '--qr', 'p.jpg');
    expect(jpg.code).toBe(2);
    expect(jpg.stderr).toMatch(
      /^netcli: --qr p\.jpg: the file name says which image to write: \.png or \.svg\n/,
    );
    const existing = path.join(cli.dir, 'wg0.conf');
    await writeFile(existing, 'another tunnel\n');
    const taken = await netcli(
      'devices',
      'add',
      '--kind',
      'phone',
      '--name',
      'p',
      '--out',
      existing,
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`--out ${existing} exists; it is left as it is`);
    expect(await readFile(existing, 'utf8')).toBe('another tunnel\n');
    const laptop = await netcli('devices', 'add', '--kind', 'laptop', '--name', 'p');
    expect(laptop.code).toBe(1);
    expect(laptop.stderr).toContain('hint: kind: one of phone, tablet');
    const missing = await netcli('devices', 'add', '--kind', 'phone');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--name/);
    expect(accountDevices()).toEqual(['fake-host']);
    expect(cli.engine.addedDeviceKeys).toEqual([]);
  });

  it('passes the plan’s device limit on, naming the devices to revoke', async () => {
    for (let i = 0; i < 4; i++) await ok('devices', 'add', '--kind', 'phone', '--name', `p${i}`);
    const full = await netcli('devices', 'add', '--kind', 'phone', '--name', 'one too many');
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^netcli: the plan allows 5 devices; revoke one to add this one\n/);
    expect(full.stderr).toContain(
      'hint: revoke a device from one that is signed in: netcli devices revoke <id>',
    );
    expect(full.stderr).toMatch(/hint: the account's devices: dev\d+ \(fake-host\), /);
  });

  it('says so, and still shows the config, when a file cannot be written after the device was added', async () => {
    const dir = path.join(cli.dir, 'gone');
    await mkdir(dir);
    const out = path.join(dir, 'sub', 'phone.conf');
    const r = await netcli('devices', 'add', '--kind', 'phone', '--name', 'p', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Scan this with the WireGuard app');
    expect(r.stderr).toContain(`netcli: the device was added, but could not write ${out} (ENOENT)`);
    expect(r.stderr).toContain('hint: scan the code above now: the config is shown only once');
    expect(accountDevices()).toEqual(['fake-host', 'p']);
  });
});
