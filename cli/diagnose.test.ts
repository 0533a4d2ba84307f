// netcli diagnose in process against the in-memory engine through the real host: a line per check
// with its mark and the fix below, the count, the exit code, the stable JSON; the report when no
// engine answers; and the export, redacted and 0600.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DIAGNOSTIC_CHECK_IDS, DiagnosticsReport, diagnosticCheck } from '../contracts/index.js';
import { FakeOutput, fakeIo } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli diagnose', () => {
  const cli = new CliHarness('ferry-cli-diagnose-');
  const { netcli } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  it('lists every check with its mark, and exits 0 when nothing is wrong', async () => {
    const r = await netcli('diagnose');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'ok    Engine: running (disconnected)',
      'ok    Control plane: 203.0.113.80:8080 answers in 4 ms (version 0.1.0)',
      'ok    API access: the service is reached directly; a signed list of 2 relays to reach it through if it is blocked',
      "ok    Clock: within a second of the control plane's clock",
      'ok    Node over UDP: hk-1 (asia-east) at 198.51.100.7 answers authenticated UDP probes (12 ms)',
      "ok    Node over TCP: a TCP connect to hk-1 (asia-east)'s Ferry port works",
      'ok    Censorship: UDP got through on this network before',
      'skip  DNS leak: connect first',
      'skip  IPv6 leak: connect first',
      'skip  MTU: connect first',
      'ok    Kill switch: armed: holds from the next connect',
      'ok    Split tunnel: off: everything goes through the tunnel',
      'skip  Domestic names: applies while connected',
      'No problems found.',
      '',
    ]);
    expect(r.stderr).toBe('');
  });

  it('puts the fix under each check that needs one, counts them, and exits 1 on a problem', async () => {
    await netcli('connect', '--region', 'asia-east');
    cli.engine.diagnoseOverrides.set(
      'node-udp',
      diagnosticCheck(
        'node-udp',
        'problem',
        'UDP to the node gets no answer on this network: the connect fell back to TCP',
        'use obfuscation: netcli config set obfuscation on (auto already falls back to TCP)',
      ),
    );
    cli.engine.diagnoseOverrides.set(
      'clock',
      diagnosticCheck(
        'clock',
        'warning',
        "this host's clock is 14 s ahead of the control plane's: getting close to where tunnel handshakes fail",
        'turn on time sync: timedatectl set-ntp true',
      ),
    );
    const r = await netcli('diagnose');
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('ok    Engine: running (connected to hk-1)');
    expect(lines.slice(3, 7)).toEqual([
      "WARN  Clock: this host's clock is 14 s ahead of the control plane's: getting close to where tunnel handshakes fail",
      '      fix: turn on time sync: timedatectl set-ntp true',
      'FAIL  Node over UDP: UDP to the node gets no answer on this network: the connect fell back to TCP',
      '      fix: use obfuscation: netcli config set obfuscation on (auto already falls back to TCP)',
    ]);
    expect(lines.filter((l) => l.startsWith('      fix:'))).toHaveLength(2);
    expect(lines.at(-2)).toBe('1 problem, 1 warning');
    expect(r.stderr).toBe('');
  });

  it('prints the report as stable JSON with --json, the exit code the same', async () => {
    cli.engine.diagnoseOverrides.set(
      'kill-switch',
      diagnosticCheck(
        'kill-switch',
        'problem',
        'the kill switch is not in force',
        'reconnect (netcli connect)',
      ),
    );
    const r = await netcli('diagnose', '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const report = DiagnosticsReport.parse(JSON.parse(r.stdout));
    expect(report.checks.map((c) => c.id)).toEqual([
      'engine',
      'control-plane',
      'api-access',
      'clock',
      'node-udp',
      'node-tcp',
      'censorship',
      'dns-leak',
      'ipv6-leak',
      'mtu',
      'kill-switch',
      'split',
      'domestic-dns',
    ]);
    expect(report).toMatchObject({ problems: 1, warnings: 0 });
    expect(report.checks[10]).toEqual({
      id: 'kill-switch',
      title: 'Kill switch',
      verdict: 'problem',
      summary: 'the kill switch is not in force',
      fix: 'reconnect (netcli connect)',
    });
  });

  it('still reports when the engine does not answer: the engine a problem, the rest skipped', async () => {
    await cli.stopHost();
    const r = await netcli('diagnose');
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `FAIL  Engine: no engine answers on ${cli.socketPath}`,
      `      fix: start it: sudo netcli daemon --socket ${cli.socketPath}`,
    ]);
    expect(lines.slice(2, 13).every((l) => l.startsWith('skip  '))).toBe(true);
    expect(lines.at(-2)).toBe('1 problem, 0 warnings');

    const j = await netcli('diagnose', '--json');
    expect(j.code).toBe(1);
    const report = DiagnosticsReport.parse(JSON.parse(j.stdout));
    expect(report.checks[0]).toMatchObject({ id: 'engine', verdict: 'problem' });
    expect(report.checks.slice(1).map((c) => c.verdict)).toEqual(
      Array(DIAGNOSTIC_CHECK_IDS.length - 1).fill('skipped'),
    );

    const file = path.join(cli.dir, 'down.json');
    const e = await netcli('diagnose', '--export', file);
    expect(e.code).toBe(1);
    const exported = DiagnosticsReport.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(exported.checks[0]!.fix).toMatch(/^start it: sudo netcli daemon/);
  });

  it('exports the report with no address, key, token or account number, 0600, and says where', async () => {
    const key = 'wRfZXmeEIJJeI02VJ5Lo6h/ZQCEOWShKjBki4T4gS2g=';
    await netcli('connect', '--region', 'asia-east');
    cli.engine.diagnoseOverrides.set(
      'dns-leak',
      diagnosticCheck(
        'dns-leak',
        'problem',
        'DNS queries leave outside the tunnel (they reach 192.0.2.53)',
        'turn the kill switch on (it drops DNS to any other resolver) and reconnect, or netcli config set dns auto',
      ),
    );
    cli.engine.diagnoseOverrides.set(
      'ipv6-leak',
      diagnosticCheck(
        'ipv6-leak',
        'problem',
        'IPv6 leaves outside the tunnel via [2001:db8:5::1]:443 and fe80::1%eth0',
        'turn the kill switch on: it blocks the IPv6 the tunnel does not carry',
      ),
    );
    cli.engine.diagnoseOverrides.set(
      'split',
      diagnosticCheck(
        'split',
        'ok',
        `peer ${key} of account 9002 2062 7102 2107, token ferry_d_${'Ab9_'.repeat(11)}`,
      ),
    );
    const file = path.join(cli.dir, 'report.json');
    const r = await netcli('diagnose', '--export', file);
    expect(r.code).toBe(1);
    // The report on the screen is the user's own: whole.
    expect(r.stdout).toContain('192.0.2.53');
    expect(r.stderr).toBe(`netcli: the report, redacted, was written to ${file}\n`);

    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    const exported = DiagnosticsReport.parse(JSON.parse(text));
    expect(exported.checks).toHaveLength(DIAGNOSTIC_CHECK_IDS.length);
    expect(exported.problems).toBe(2);
    for (const leak of [
      '192.0.2.53',
      '203.0.113.80',
      '2001:db8:5::1',
      'fe80::1',
      key,
      '9002',
      'ferry_d_',
    ])
      expect(text).not.toContain(leak);
    expect(text).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    expect(text).not.toMatch(/[A-Za-z0-9+/]{43}=/);
    expect(exported.checks.find((c) => c.id === 'dns-leak')!.summary).toBe(
      'DNS queries leave outside the tunnel (they reach <address>)',
    );
    expect(exported.checks[1]!.summary).toBe('<address>:8080 answers in 4 ms (version 0.1.0)');

    // --json: the report on stdout, and the file written all the same.
    const again = await netcli('diagnose', '--json', '--export', file);
    expect(DiagnosticsReport.parse(JSON.parse(again.stdout)).problems).toBe(2);
    expect(again.stderr).toContain(file);
  });

  it('exports the report with the service’s host name replaced, wherever it appears', async () => {
    await cli.ok('init', '--endpoint', 'https://vpn.corp.example:8443/api/v1');
    cli.engine.diagnoseOverrides.set(
      'control-plane',
      diagnosticCheck(
        'control-plane',
        'ok',
        'vpn.corp.example:8443 answers in 4 ms (version 0.1.0)',
      ),
    );
    cli.engine.diagnoseOverrides.set(
      'clock',
      diagnosticCheck(
        'clock',
        'warning',
        'VPN.Corp.Example said its time (getaddrinfo ENOTFOUND api.vpn.corp.example)',
        'check https://vpn.corp.example:8443/api/v1 in a browser',
      ),
    );
    const file = path.join(cli.dir, 'report.json');
    const r = await netcli('diagnose', '--export', file);
    expect(r.code).toBe(0);
    // The screen is the user's own: the name stays there.
    expect(r.stdout).toContain('vpn.corp.example:8443 answers');
    const text = await readFile(file, 'utf8');
    expect(text).not.toMatch(/corp/i);
    const exported = DiagnosticsReport.parse(JSON.parse(text));
    expect(exported.checks[1]!.summary).toBe('<service-host>:8443 answers in 4 ms (version 0.1.0)');
    expect(exported.checks[3]).toMatchObject({
      summary: '<service-host> said its time (getaddrinfo ENOTFOUND api.<service-host>)',
      fix: 'check https://<service-host>:8443/api/v1 in a browser',
    });

    // Without the service to leave out, nothing is written.
    vi.spyOn(cli.engine, 'getConfig').mockRejectedValue(new Error('the disk went away'));
    const unsure = path.join(cli.dir, 'unsure.json');
    const refused = await netcli('diagnose', '--export', unsure);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^ok {4}Engine/);
    expect(refused.stderr).toMatch(
      /^netcli: the engine did not say which service it uses.*no report was written\n/,
    );
    await expect(stat(unsure)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('says when the export cannot be written, after printing the report', async () => {
    const r = await netcli('diagnose', '--export', path.join(cli.dir, 'missing', 'r.json'));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ok {4}Engine/);
    expect(r.stderr).toMatch(/^netcli: could not write the report to .*r\.json \(ENOENT\)\nhint: /);
  });

  it('shows a spinner on a terminal, never with --json', async () => {
    const io = fakeIo();
    io.stderr = new FakeOutput(true);
    await cli.run(['diagnose'], io);
    expect(io.stderr.text).toContain('Running the checks');
    const quiet = fakeIo();
    quiet.stderr = new FakeOutput(true);
    await cli.run(['diagnose', '--json'], quiet);
    expect(quiet.stderr.text).toBe('');
  });
});
