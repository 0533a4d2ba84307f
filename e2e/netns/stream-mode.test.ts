// Stream mode end to end: two relays check a mock streaming platform through their own uplinks
// (it serves the JP catalogue to tokyo and flags zurich as a proxy); `netcli connect --mode stream
// --platform netflix` lands on tokyo and stream-test reads its catalogue; the platform's address
// is in the home country, yet stream mode (and stream-test) send its traffic through the tunnel;
// connecting to the flagged node by hand, stream-test says so with the fix.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_PLATFORMS, StreamTestResult, type PlatformDef } from '../../contracts/index.js';
import { mockPlatformEntry, writePlatformsFile, type MockPlatform } from './mock-platform.js';
import { NetcliHost } from './netcli-host.js';
import { Testbed, type RelayHandle } from './testbed.js';

const CHECK_SECONDS = 3;

describe('stream mode', () => {
  let bed: Testbed;
  let platform: MockPlatform;
  let tokyo: RelayHandle;
  let zurich: RelayHandle;
  let laptop: NetcliHost;
  const json = (...args: string[]) => laptop.json(...args);
  const streamTest = () => {
    const r = laptop.run('stream-test', '--platform', 'netflix', '--json');
    if (r.stdout.trim() === '') throw new Error(`stream-test printed nothing: ${r.stderr}`);
    return { code: r.code, result: StreamTestResult.parse(JSON.parse(r.stdout)) };
  };
  let asks = 0;
  /** Asks the platform from the laptop: the address the platform saw that request from. */
  const seenFromLaptop = async () => {
    const marker = `laptop-ask-${asks++}`;
    bed.net.exec('laptop', ['curl', '-s', '--max-time', '3', `${platform.url}?${marker}`]);
    return bed.net.waitFor(
      `the platform's log of ${marker}`,
      5_000,
      () => platform.requestersOf(marker)[0],
    );
  };

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    // Until the relays' addresses are known, the platform flags everyone: no relay's first check
    // (at its start) can verify it before the test says which one it serves.
    platform = await bed.startMockPlatform('netflix', { byAddress: {}, fallback: 'proxy' });
    // The real platforms are not on the test internet: pointed at a closed port, they fail at
    // once, and the relays check Netflix (the mock) at every interval.
    const unreachable: Record<string, PlatformDef> = {};
    for (const id of Object.keys(SHIPPED_PLATFORMS))
      unreachable[id] = mockPlatformEntry(id, `http://${platform.address}:9/`);
    const platforms = writePlatformsFile(bed, {
      ...unreachable,
      netflix: mockPlatformEntry('netflix', platform.url),
    });
    const relayArgs = [
      '--platforms-file',
      platforms,
      '--platform-check-seconds',
      `${CHECK_SECONDS}`,
    ];
    tokyo = await bed.addRelay('tokyo', 'asia-east', { ferry: true, extraArgs: relayArgs });
    zurich = await bed.addRelay('zurich', 'global', { ferry: true, extraArgs: relayArgs });
    platform.setAnswers({ [tokyo.address]: 'JP', [zurich.address]: 'proxy' });
    const geoip = path.join(bed.net.dir, 'geoip.csv');
    laptop = await NetcliHost.start(bed, 'laptop', {
      daemonArgs: ['--platforms-file', platforms, '--geoip-file', geoip],
      // The laptop and the platform's server are at home (DE): split sends it directly.
      prepare: (address) => writeFileSync(geoip, `${address}/32,DE\n${platform.address}/32,DE\n`),
    });
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create');
    // Both relays have checked and reported (GET /regions lists netflix where it is verified).
    const verifiedIn = (region: string): boolean =>
      json('region', 'list')
        .regions.find((r: { id: string }) => r.id === region)
        ?.platforms_verified?.includes('netflix') === true;
    await bed.net.waitFor('tokyo verified for netflix', 30_000, () =>
      verifiedIn('asia-east') ? true : undefined,
    );
    expect(verifiedIn('global')).toBe(false);
  }, 180_000);
  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('a plain connect with split auto sends the domestic platform directly (what stream mode changes)', async () => {
    json('connect', '--region', 'asia-east');
    expect(await seenFromLaptop()).toBe(laptop.address);
    laptop.human('disconnect');
  });

  it('connect --mode stream --platform lands on the verified node; its traffic takes the tunnel; stream-test reads JP', async () => {
    const answer = json('connect', '--mode', 'stream', '--platform', 'netflix');
    expect(answer).toMatchObject({ status: 'connected', mode: 'stream', platform: 'netflix' });
    expect(answer.node.endpoint).toMatch(new RegExp(`^${tokyo.address.replaceAll('.', '\\.')}:`));
    expect(answer.protection.split).toBe('by-country');
    // The platform is at home, and still it sees the relay: pinned to the tunnel.
    expect(await seenFromLaptop()).toBe(tokyo.address);
    const { code, result } = streamTest();
    expect(code).toBe(0);
    expect(result).toMatchObject({ verdict: 'ok', reachable: true, catalog_region: 'JP' });
    laptop.human('disconnect');
  });

  it('on the flagged node by hand, stream-test says so (through the tunnel) and names the fix', async () => {
    json('connect', '--region', 'global');
    expect(json('status').node.endpoint).toMatch(
      new RegExp(`^${zurich.address.replaceAll('.', '\\.')}:`),
    );
    const { code, result } = streamTest();
    expect(code).toBe(1);
    expect(result.verdict).toBe('proxy-detected');
    expect(result.fix).toMatch(/netcli connect --mode stream --platform netflix/);
    // The test's pins went with it: the platform goes directly again.
    expect(await seenFromLaptop()).toBe(laptop.address);
    laptop.human('disconnect');
  });

  it('stream mode in a region with no verified node refuses, naming where the platform is verified', () => {
    const r = laptop.run(
      'connect',
      '--mode',
      'stream',
      '--platform',
      'netflix',
      '--region',
      'global',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/netflix|Netflix/);
    expect(r.stderr).toMatch(/asia-east/);
    laptop.human('disconnect');
  });
});
