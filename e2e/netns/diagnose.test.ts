// netcli diagnose across the test internet: every check ok on a healthy connection, and the right
// verdict and fix for each fault the tests can make: the engine stopped, the control plane
// unreachable, a DNS leak (the system resolver rewritten to a resolver outside the tunnel, with
// the kill switch off), UDP to the nodes blocked, an MTU black hole on the way to the node; and
// an export that holds no key, token or address.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DIAGNOSTIC_CHECK_IDS,
  type DiagnosticCheck,
  type DiagnosticsReport,
} from '../../contracts/index.js';
import { ProtectionBed } from './protection-kit.js';

describe('netcli diagnose', () => {
  let p: ProtectionBed;
  const json = (...args: string[]) => p.laptop.json(...args);
  const human = (...args: string[]) => p.laptop.human(...args);
  /** The report and the exit code (1 when a check is a problem). */
  const diagnose = (...args: string[]) => {
    const r = p.laptop.run('diagnose', '--json', ...args);
    if (r.stdout.trim() === '') throw new Error(`diagnose printed nothing: ${r.stderr}`);
    const report = JSON.parse(r.stdout) as DiagnosticsReport;
    const check = (id: DiagnosticCheck['id']) => report.checks.find((c) => c.id === id)!;
    return { code: r.code, report, check, verdicts: verdicts(report) };
  };
  const verdicts = (report: DiagnosticsReport) =>
    Object.fromEntries(report.checks.map((c) => [c.id, c.verdict]));

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
  }, 180_000);
  afterEach(async () => {
    await p?.heal();
  }, 30_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  it('a healthy connection: every check ok (or not applicable), exit 0, nothing leaked by its probes', async () => {
    json('connect', '--region', 'work');
    const watch = await p.watch();
    const { code, verdicts: v, check } = diagnose();
    const result = await watch.stop();
    expect(p.leaks(result)).toEqual([]);
    expect(v).toMatchObject({
      engine: 'ok',
      'control-plane': 'ok',
      // Reached directly, with the service's relay list to fall back on.
      'api-access': 'ok',
      clock: 'ok',
      'node-udp': 'ok',
      // The first connect on this network got through over UDP: no sign of interference.
      censorship: 'ok',
      'dns-leak': 'ok',
      'ipv6-leak': 'ok',
      mtu: 'ok',
      'kill-switch': 'ok',
      split: 'ok',
      // The system resolver is Ferry's, and the control plane's name for DE resolves at home.
      'domestic-dns': 'ok',
    });
    expect(['ok', 'skipped']).toContain(v['node-tcp']);
    expect(code).toBe(0);
    expect(check('split').summary).toMatch(/DE/);
    expect(check('domestic-dns').summary).toMatch(/resolves at home \(DE\)/);
    const text = human('diagnose');
    expect(text).toMatch(/kill switch/i);
    expect(text).not.toMatch(/FAIL/);
  }, 60_000);

  it('--export writes the report with no key, token or address in it', () => {
    const file = path.join(p.bed.net.dir, 'diagnose-export.json');
    const r = p.laptop.run('diagnose', '--export', file);
    expect(r.stderr).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text).checks).toHaveLength(DIAGNOSTIC_CHECK_IDS.length);
    const secrets = [
      p.laptop.address,
      ...p.relays.map((r) => r.address),
      p.bed.net.host('ctrl').address,
      p.bed.net.host('laptop').address6!,
      '10.64.0.1',
      ...Object.values(
        JSON.parse(readFileSync(path.join(p.laptop.stateDir, 'keys.json'), 'utf8')) as Record<
          string,
          unknown
        >,
      ).flatMap((v) => (typeof v === 'object' && v ? Object.values(v) : [v])),
      JSON.parse(readFileSync(path.join(p.laptop.stateDir, 'session.json'), 'utf8')).token,
      json('account').account_number,
    ].filter((x): x is string => typeof x === 'string' && x.length > 0);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
  }, 60_000);

  it('an MTU black hole on the way to the node: the largest packets that pass, and the mtu to set', () => {
    json('connect', '--region', 'work', '--protocol', 'wireguard');
    const relay = p.currentRelay();
    p.bed.net.mtuBlackHole('laptop', relay.host, 1400);
    const { check, code } = diagnose();
    expect(check('mtu').verdict).toBe('problem');
    expect(check('mtu').fix).toMatch(/netcli config set mtu \d+/);
    expect(code).toBe(1);
    const mtu = /mtu (\d+)/.exec(check('mtu').fix!)![1]!;
    expect(Number(mtu)).toBeGreaterThanOrEqual(1280);
    human('config', 'set', 'mtu', mtu);
    const fixed = diagnose().check('mtu');
    expect(fixed.verdict, fixed.summary).toBe('ok');
    human('config', 'set', 'mtu', 'auto');
  }, 90_000);

  it('a DNS leak with the kill switch off: the system resolver rewritten to one outside the tunnel', () => {
    json('connect', '--region', 'work');
    human('config', 'set', 'kill_switch', 'off');
    // Another program (a DHCP client, say) rewrites resolv.conf behind the engine's back: the
    // resolver it names is at home, so its queries leave directly.
    p.bed.net.setEtcFile('laptop', 'resolv.conf', `nameserver ${p.authority.address}\n`);
    const leaking = diagnose();
    expect(leaking.check('dns-leak').verdict).toBe('problem');
    expect(leaking.check('dns-leak').fix).toMatch(/kill switch/);
    expect(leaking.check('kill-switch').verdict).toBe('warning');
    // With the kill switch on, the same resolver gets nothing: no leak, and a warning.
    human('config', 'set', 'kill_switch', 'on');
    const held = diagnose();
    expect(held.check('dns-leak').verdict).not.toBe('problem');
    expect(held.check('kill-switch').verdict).toBe('ok');
    human('disconnect');
  }, 90_000);

  it('UDP to the nodes blocked: node-udp says so and suggests obfuscation', () => {
    for (const r of p.relays) p.bed.net.blockUdp('laptop', r.host);
    // Before connecting: the probes find it.
    const before = diagnose();
    expect(before.check('node-udp').verdict).toBe('problem');
    expect(before.check('node-udp').fix).toMatch(/obfuscation/);
    expect(before.check('node-tcp').verdict).toBe('ok');
    // Connected (over TCP, by itself): the tunnel's own evidence says the same.
    expect(json('connect', '--region', 'work').transport).toBe('tcp');
    const after = diagnose();
    expect(after.check('node-udp').verdict).toBe('problem');
    expect(after.check('node-udp').fix).toMatch(/obfuscation/);
    human('disconnect');
  }, 90_000);

  it('the control plane unreachable: a problem with the fix', () => {
    p.bed.net.blackhole('ctrl');
    const { check, code } = diagnose();
    expect(check('control-plane').verdict).toBe('problem');
    expect(check('control-plane').fix).toBeTruthy();
    expect(code).toBe(1);
  }, 60_000);

  it('the engine stopped: a report all the same, exit 1', async () => {
    await p.laptop.stop();
    try {
      const { check, code, report } = diagnose();
      expect(check('engine').verdict).toBe('problem');
      expect(check('engine').fix).toMatch(/netcli daemon/);
      expect(
        report.checks.filter((c) => c.id !== 'engine').every((c) => c.verdict === 'skipped'),
      ).toBe(true);
      expect(code).toBe(1);
    } finally {
      await p.laptop.startDaemon();
    }
  }, 60_000);
});
