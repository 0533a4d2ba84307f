// netcli stream-test in process against the in-memory engine through the real host: the verdict a
// person reads at a glance (with the fix), the stable JSON, the exit code, the refusals; and
// netcli daemon handing --platforms-file to the cli.engine.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamTestResult } from '../contracts/index.js';
import { FakeEngine } from '../engine/engine.fake.js';
import { probeSocket } from '../engine/host/socket-file.js';
import { fakeIo, runNetcli } from './io.fake.js';
import { CliHarness } from './testing/cli-harness.js';

describe('netcli stream-test', () => {
  const cli = new CliHarness('ferry-cli-stream-');
  const { netcli } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  it('says OK with the catalogue and the node’s region, and the same as JSON', async () => {
    await netcli('connect', '--region', 'asia-east');
    const r = await netcli('stream-test', '--platform', 'Netflix');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'Netflix: OK · the HK catalogue, as expected for asia-east (HK)',
      'Catalogue HK · node region asia-east (HK)',
      '',
    ]);
    const j = await netcli('stream-test', '--platform', 'netflix', '--json');
    expect(j.code).toBe(0);
    expect(StreamTestResult.parse(JSON.parse(j.stdout))).toMatchObject({
      platform: 'netflix',
      reachable: true,
      catalog_region: 'HK',
      node_region: 'asia-east',
      node_country: 'HK',
      matches: true,
      verdict: 'ok',
      fix: null,
    });
  });

  it('says proxy detected with the fix, and exits 1', async () => {
    await netcli('connect', '--region', 'asia-east');
    cli.engine.streamAnswers.set('netflix', {
      ok: true,
      answer: { status: 404, headers: {}, locations: [], body: '' },
    });
    const r = await netcli('stream-test', '--platform', 'netflix');
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'Netflix: proxy detected · Netflix flags this node as a proxy or VPN (HTTP 404)',
      'Catalogue not read · node region asia-east (HK)',
      'Fix: this node is flagged by Netflix: netcli connect --mode stream --platform netflix picks a verified one',
      '',
    ]);
    const j = await netcli('stream-test', '--platform', 'netflix', '--json');
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ verdict: 'proxy-detected' });
    expect(j.stderr).toBe('');
  });

  it('says region mismatch, unavailable and unreachable in words, each with its fix', async () => {
    await netcli('connect', '--region', 'asia-east');
    cli.engine.streamAnswers.set('prime-video', {
      ok: true,
      answer: { status: 200, headers: {}, locations: [], body: '"currentTerritory":"US"' },
    });
    const mismatch = await netcli('stream-test', '--platform', 'prime');
    expect(mismatch.stdout).toMatch(
      /^Prime Video: region mismatch · Prime Video serves its US catalogue through asia-east \(HK\)\n/,
    );
    expect(mismatch.stdout).toMatch(/\nFix: .*--platform prime-video --region asia-east/);

    cli.engine.streamAnswers.set('hulu', {
      ok: true,
      answer: { status: 200, headers: {}, locations: [], body: '{"name":"GEO_BLOCKED"}' },
    });
    const hulu = await netcli('stream-test', '--platform', 'hulu');
    expect(hulu.stdout).toMatch(/^Hulu: not available here · /);
    expect(hulu.stdout).toMatch(/\nFix: Hulu is offered in US only: connect to a region in US/);

    cli.engine.streamAnswers.set('youtube', { ok: false, reason: 'timeout' });
    const yt = await netcli('stream-test', '--platform', 'youtube');
    expect(yt.code).toBe(1);
    expect(yt.stdout.split('\n')[0]).toBe(
      'YouTube: unreachable · YouTube did not answer through the tunnel within 10 s',
    );
    expect(yt.stdout).not.toMatch(/Catalogue/);
  });

  it('refuses an unknown platform listing the table’s, and says to connect first', async () => {
    const unknown = await netcli('stream-test', '--platform', 'myspace');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^netcli: there is no platform myspace/);
    expect(unknown.stderr).toMatch(
      /platform: one of bbc-iplayer, bilibili, disney-plus, hulu, netflix, prime-video, youtube/,
    );
    const disconnected = await netcli('stream-test', '--platform', 'netflix');
    expect(disconnected.code).toBe(1);
    expect(disconnected.stderr).toMatch(/not connected/);
    const missing = await netcli('stream-test');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--platform/);
  });
});

describe('netcli daemon --platforms-file', () => {
  it('hands the file to the engine', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ferry-daemon-platforms-'));
    try {
      const socketPath = path.join(dir, 'engine.sock');
      const made: unknown[] = [];
      const io = fakeIo({
        createEngine: (options) => {
          made.push(options);
          return new FakeEngine();
        },
      });
      const file = path.join(dir, 'platforms.json');
      const daemon = runNetcli(
        socketPath,
        ['daemon', '--state-dir', path.join(dir, 'state'), '--platforms-file', file],
        io,
      );
      await expect.poll(() => probeSocket(socketPath)).toBe('live');
      expect(made).toMatchObject([{ platformsFile: file }]);
      io.interrupt();
      expect((await daemon).code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
