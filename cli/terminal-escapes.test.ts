// What the control plane says reaches the terminal as text, never as commands to it: names,
// problem details, notices and routing reasons full of escape sequences (a window title, a
// cleared screen, the clipboard written, a forged "Connected" line, text turned right to left),
// answered by the in-memory engine through the real host, and the bytes netcli writes read back.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LocalConnectResponse, LocalStatus } from '../contracts/index.js';
import { FerryError } from '../engine/errors.js';
import { fakeIo } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';
import { CONTROLS, hostile } from './testing/terminal-controls.js';

/** Each attack's visible payload; none may reach the terminal. */
const PAYLOADS = ['pwned', 'Y3VybCBldmls', '2J', ']0;', ']52;'];

function expectHarmless(text: string): void {
  expect(text).not.toMatch(CONTROLS);
  for (const p of PAYLOADS) expect(text).not.toContain(p);
}

/** A line that looks like the status line but came from the control plane. */
const FORGED = `\nConnected to safe-region (node safe-1) over WireGuard`;

describe('netcli shows what the control plane says without its terminal controls', () => {
  const cli = new CliHarness('ferry-cli-escapes-');
  const { netcli, ok } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  /** A connected status whose every name and message came from a hostile control plane. */
  function hostileStatus(): LocalStatus {
    return {
      ...cli.engine.status(),
      status: 'connected',
      latency: '12ms',
      region: hostile('asia-east') + FORGED,
      node: { id: hostile('hk-1'), region: hostile('asia-east'), endpoint: 'hk-1.example:51820' },
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      mode: 'secure',
      platform: null,
      transport: 'udp',
      interface: 'ferry0',
      notices: [{ code: 'key-rotated', message: hostile('the key was rotated') + FORGED }],
    };
  }

  it('status: region, node and notices', async () => {
    const status = hostileStatus();
    vi.spyOn(cli.engine, 'status').mockReturnValue(status);
    const r = await ok('status');
    expectHarmless(r.stdout);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^Connected to as ?ia-east Connected to safe-region .*\(node hk ?-1\)/,
    );
    expect(lines.filter((l) => l.startsWith('Connected'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('Note: ')).join('\n')).toMatch(
      /^Note: th ?e key was rotated Connected to safe-region/,
    );
  });

  it('status --json: the same values exactly, every control escaped', async () => {
    const status = hostileStatus();
    vi.spyOn(cli.engine, 'status').mockReturnValue(status);
    const r = await ok('status', '--json');
    expect(r.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(r.stdout)).toEqual(status);
  });

  it('connect --verbose: routing reasons and notices; a refusal’s detail', async () => {
    const answer: LocalConnectResponse = {
      ...hostileStatus(),
      exit_ip: { before: '198.18.5.10', after: '198.19.5.20' },
      routing: { strategy: 'lowest-latency', reasons: [hostile('hk-1 has the lowest latency')] },
    };
    vi.spyOn(cli.engine, 'connect').mockResolvedValue(answer);
    const r = await ok('connect', '--verbose');
    expectHarmless(r.stdout);
    expect(r.stdout).toMatch(/\n {2}- hk ?-1 has the lowest latency\n/);
    vi.restoreAllMocks();

    // A problem's detail, as the engine passes the control plane's on.
    cli.engine.failNextConnect = new FerryError('node-unreachable', hostile('the node went away'));
    const failed = await netcli('connect');
    expect(failed.code).toBe(1);
    expectHarmless(failed.stderr);
    expect(failed.stderr).toMatch(/^netcli: th ?e node went away\n/);
    // The engine's error as status shows it.
    const status = await ok('status');
    expectHarmless(status.stdout);
    expect(status.stdout).toMatch(/^Error: th ?e node went away\n/);
  });

  it('account, devices and regions: names', async () => {
    const session = await cli.json('account');
    await cli.engine.renameDevice(session.device.id, hostile('laptop') + FORGED);
    const account = await ok('account');
    expectHarmless(account.stdout);
    expect(account.stdout).toMatch(/\(this one: la ?ptop Connected to safe-region .*\)\n/);

    const renamed = await cli.engine.renameDevice(session.device.id, 'x');
    vi.spyOn(cli.engine, 'renameDevice').mockResolvedValue({
      ...renamed,
      name: hostile('old phone') + FORGED,
    });
    const rename = await ok('devices', 'rename', session.device.id, 'old phone');
    expectHarmless(rename.stdout);
    expect(rename.stdout).toMatch(/ is now called ol ?d phone Connected to safe-region/);

    const real = await cli.engine.listRegions();
    vi.spyOn(cli.engine, 'listRegions').mockResolvedValue({
      ...real,
      regions: real.regions.map((r) => ({ ...r, name: hostile(r.name) })),
    });
    const regions = await ok('region', 'list');
    expectHarmless(regions.stdout);
    expect(regions.stdout).toMatch(/As ?ia East/);
    // The columns measured as shown: each row's area where the header's AREA is.
    const [header, ...rows] = regions.stdout.split('\n').slice(0, 4);
    const areaAt = header!.indexOf('AREA');
    expect(rows.map((r) => r.slice(areaAt).split(' ')[0])).toEqual(real.regions.map((r) => r.area));
  });

  it('status --watch: a notice as it comes', async () => {
    const io = fakeIo();
    const watching = cli.run(['status', '--watch'], io);
    await vi.waitFor(() => expect(io.stdout.text).toContain('\n'));
    cli.engine.notify({ code: 'obfuscation', message: hostile('fell back to TCP') + FORGED });
    await vi.waitFor(() => expect(io.stdout.text).toContain('TCP'));
    io.interrupt();
    expect((await watching).code).toBe(0);
    expectHarmless(io.stdout.text);
    const lines = io.stdout.text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/Note: fe ?ll back to TCP Connected to safe-region/);
  });

  it('keeps netcli’s own terminal sequences: the spinner on a terminal', async () => {
    const io = fakeIo();
    Object.assign(io.stderr, { isTTY: true });
    const r = await cli.run(['connect'], io);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\r⠋ Connecting/);
    expect(r.stderr).toContain('\r\x1b[K');
  });
});
