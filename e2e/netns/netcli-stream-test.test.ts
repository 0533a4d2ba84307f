// netcli stream-test on the test internet: `netcli daemon --platforms-file` points the shipped
// Netflix entry at a mock platform that answers by the requester's address, as a real platform
// answers by GeoIP. Relays in asia-east (Tokyo, which the mock serves the JP catalogue) and
// global (Zurich, which it flags as a proxy). Through Tokyo: reachable, JP catalogue, matching
// the region's country; through Zurich: proxy detected, with the fix. The probe leaves through
// the tunnel: the platform sees the relay, never the laptop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamTestResult } from '../../contracts/index.js';
import { mockPlatformEntry, writePlatformsFile, type MockPlatform } from './mock-platform.js';
import { NetcliHost } from './netcli-host.js';
import { Testbed, type RelayHandle } from './testbed.js';

describe('netcli stream-test through real tunnels', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let tokyo: RelayHandle;
  let zurich: RelayHandle;
  let platform: MockPlatform;

  /** stream-test --json, whatever its exit code (1 when the verdict is not OK). */
  const streamTest = (name: string) => {
    const r = laptop.run('stream-test', '--platform', name, '--json');
    if (r.stdout.trim() === '') throw new Error(`stream-test printed nothing: ${r.stderr}`);
    return { code: r.code, result: StreamTestResult.parse(JSON.parse(r.stdout)) };
  };

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    tokyo = await bed.addRelay('tokyo', 'asia-east');
    zurich = await bed.addRelay('zurich', 'global');
    platform = await bed.startMockPlatform('netflix', {
      byAddress: { [tokyo.address]: 'JP', [zurich.address]: 'proxy' },
    });
    const file = writePlatformsFile(bed, { netflix: mockPlatformEntry('netflix', platform.url) });
    laptop = await NetcliHost.start(bed, 'laptop', { daemonArgs: ['--platforms-file', file] });
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs('/api/v1'));
    laptop.human('account', 'create');
  }, 180_000);
  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('needs a connection, and names the platforms when asked for one it lacks', async () => {
    const disconnected = laptop.run('stream-test', '--platform', 'netflix');
    expect(disconnected.code).toBe(1);
    expect(disconnected.stderr).toMatch(/not connected/);
    const unknown = laptop.run('stream-test', '--platform', 'myspace');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/platform: one of .*netflix/);
    // Nothing was asked: the platform's log (read once the event loop turns) stays empty.
    await new Promise((r) => setTimeout(r, 300));
    expect(platform.requesters()).toEqual([]);
  });

  it('through the node the platform serves JP: reachable, JP catalogue, as the region’s country', async () => {
    laptop.json('connect', '--region', 'asia-east');
    const { code, result } = streamTest('netflix');
    expect(code).toBe(0);
    expect(result).toMatchObject({
      platform: 'netflix',
      reachable: true,
      catalog_region: 'JP',
      node_region: 'asia-east',
      node_country: 'JP',
      matches: true,
      verdict: 'ok',
      fix: null,
    });
    // The platform saw the relay's exit address (twice: the title, then its JP redirect).
    // (Its log arrives once the event loop turns: netcli ran synchronously.)
    await expect.poll(() => platform.requesters()).toEqual([tokyo.address, tokyo.address]);
    const human = laptop.human('stream-test', '--platform', 'Netflix');
    expect(human.split('\n')[0]).toBe(
      'Netflix: OK · the JP catalogue, as expected for asia-east (JP)',
    );
  }, 90_000);

  it('through the node the platform flags: proxy detected, with the fix', async () => {
    laptop.json('connect', '--region', 'global');
    const { code, result } = streamTest('netflix');
    expect(code).toBe(1);
    expect(result).toMatchObject({
      platform: 'netflix',
      reachable: true,
      catalog_region: null,
      node_region: 'global',
      matches: null,
      verdict: 'proxy-detected',
      fix: 'this node is flagged by Netflix: netcli connect --mode stream --platform netflix picks a verified one',
    });
    await expect.poll(() => platform.requesters().at(-1)).toBe(zurich.address);
    expect(platform.requesters()).not.toContain(laptop.address);
    const human = laptop.run('stream-test', '--platform', 'netflix');
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^Netflix: proxy detected · /);
    expect(human.stdout).toMatch(/\nFix: this node is flagged by Netflix: netcli connect/);
  }, 90_000);

  it('says unreachable, in bounded time, for a platform the test internet does not have', () => {
    const started = Date.now();
    const { code, result } = streamTest('youtube');
    expect(code).toBe(1);
    expect(result).toMatchObject({ platform: 'youtube', reachable: false, verdict: 'unreachable' });
    expect(result.fix).toMatch(/netcli status/);
    expect(Date.now() - started).toBeLessThan(30_000);
    laptop.human('disconnect');
  }, 60_000);
});
