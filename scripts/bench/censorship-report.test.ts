// The censorship benchmark's rows: first and remembered connects apart, failures said, and the
// --runs option the benchmarks share.
import { describe, expect, it } from 'vitest';

import { markdownTable, parseRuns } from './bench-kit.js';
import { caseRow, caseTable, failures, type RunSample } from './censorship-report.js';

const run = (connectMs: number, transport = 'tls', reason?: string, mbps = 100): RunSample => ({
  connectMs,
  transport,
  protocol: transport === 'udp' ? 'wireguard' : 'ferry',
  reason,
  mbps,
});

describe('caseRow', () => {
  it('keeps the first connect apart from the remembered ones (median [min–max])', () => {
    const row = caseRow({
      name: 'udp-block',
      planned: 4,
      runs: [
        run(3_400, 'tls', 'UDP looks blocked on this network: using TLS', 90),
        run(900, 'tls', 'TLS worked on this network before', 120),
        run(700, 'tls', 'TLS worked on this network before', 110),
        run(1_100, 'tls', 'TLS worked on this network before', 100),
      ],
    });
    expect(row).toEqual([
      'udp-block',
      'TLS (Ferry)',
      '4 of 4',
      '3.4',
      '0.9 [0.7–1.1]',
      '105',
      'UDP looks blocked on this network: using TLS; later: TLS worked on this network before',
    ]);
  });

  it('says a failed first run, a change of transport, small throughput and a missing reason', () => {
    const row = caseRow({
      name: 'udp-throttle',
      planned: 3,
      runs: [
        { failed: 'netcli connect exited 1\nmore' },
        run(500, 'udp', undefined, 0.061),
        run(800, 'tcp', 'x', 0.05),
      ],
    });
    expect(row).toEqual([
      'udp-throttle',
      'UDP (WireGuard), then TCP (Ferry)',
      '2 of 3',
      'failed',
      '0.7 [0.5–0.8]',
      '0.06',
      '(none given); later: x',
    ]);
  });

  it('says a move while connected: both carriers, and the download that ran until it', () => {
    const moved = {
      ...run(800, 'tls', 'UDP is throttled on this network: using TLS', 900),
      moved: { from: 'UDP (WireGuard)', ms: 9_400 },
    };
    const row = caseRow({
      name: 'udp-throttle',
      planned: 2,
      runs: [moved, run(600, 'tls', 'TLS worked on this network before: using it', 1_000)],
    });
    expect(row[1]).toBe('UDP (WireGuard), then TLS (Ferry)');
    expect(row[6]).toBe(
      'UDP is throttled on this network: using TLS (moved off UDP (WireGuard) after 9.4 s of a download); later: TLS worked on this network before: using it',
    );
  });

  it('says why a case failed as a whole, on one line without pipes', () => {
    const c = { name: 'fet', planned: 3, runs: [], failed: 'nginx | missing\nstack' };
    expect(caseRow(c)).toEqual(['fet', '-', '0 of 3', '-', '-', '-', 'failed: nginx / missing']);
    expect(
      failures([c, { name: 'prober', planned: 2, runs: [run(1), { failed: 'no answer' }] }]),
    ).toEqual(['fet: nginx / missing', 'prober run 2: no answer']);
  });

  it('makes one table row per case under the headers', () => {
    const lines = caseTable([{ name: 'no censor', planned: 1, runs: [run(1_000, 'udp')] }]).split(
      '\n',
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      '| no censor | UDP (WireGuard) | 1 of 1 | 1.0 | n/a | 100 | (none given) |',
    );
  });
});

describe('bench-kit', () => {
  it('markdownTable lays out headers, a rule and rows', () => {
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });

  it('parseRuns reads --runs, its default and, where allowed, the words after it', () => {
    expect(parseRuns([], 'usage', 3)).toEqual({ runs: 3, positionals: [] });
    expect(parseRuns(['--runs', '5', 'fet'], 'usage', 3, true)).toEqual({
      runs: 5,
      positionals: ['fet'],
    });
    expect(() => parseRuns(['fet'], 'usage: x', 3)).toThrow(/usage: x/);
    expect(() => parseRuns(['--runs', '0'], 'usage', 3)).toThrow(/1\.\.100, not 0/);
    expect(() => parseRuns(['--runs', '2.5'], 'usage', 3)).toThrow(/not 2\.5/);
  });
});
