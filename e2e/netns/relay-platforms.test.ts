// Stream mode's ground truth on the test internet: relays check a streaming platform through
// their own uplink (`ferry-relay --platforms-file` points the shipped Netflix entry at a mock
// platform that answers by the requester's address) and report in their heartbeats. Two relays
// in asia-east, one the platform serves the JP catalogue and one it flags as a proxy: GET /nodes
// and GET /regions say which is verified, and POST /connect with `platform` lands on the verified
// one every time. A third relay, in global, checks only when the control plane asks. When the
// platform starts flagging the verified relay too, it is no longer chosen within one check
// interval and a heartbeat: 409 platform-unverified, naming where the platform is verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  SHIPPED_PLATFORMS,
  type ControlClient,
  type NodePlatform,
  type PlatformDef,
} from '../../contracts/index.js';
import { mockPlatformEntry, writePlatformsFile, type MockPlatform } from './mock-platform.js';
import { Testbed, refusal, type RelayHandle } from './testbed.js';

/** The asia-east relays' check interval; the testbed's heartbeats come every second. */
const CHECK_SECONDS = 3;
const HEARTBEAT_SECONDS = 1;

describe('relays verify streaming platforms and stream mode picks verified nodes', () => {
  let bed: Testbed;
  let platform: MockPlatform;
  let verified: RelayHandle;
  let flagged: RelayHandle;
  let onDemand: RelayHandle;
  let device: ControlClient;

  /** Netflix as GET /nodes shows it for a relay's node. */
  const netflixOf = async (r: RelayHandle): Promise<NodePlatform | undefined> => {
    const { nodes } = await device.listNodes({ query: { region: r.region } });
    return nodes.find((n) => n.id === r.nodeId)?.platforms?.find((p) => p.platform === 'netflix');
  };
  const verifiedIn = async (region: string) =>
    (await device.listRegions()).regions.find((r) => r.id === region)!.platforms_verified;
  const streamConnect = (region: string, latencies: Record<string, number> = {}) =>
    device.connect({ body: { usage: 'streaming', platform: 'netflix', region, latencies } });

  beforeAll(async () => {
    bed = await Testbed.start();
    // Until the test says otherwise, the platform flags every address.
    platform = await bed.startMockPlatform('netflix', { byAddress: {}, fallback: 'proxy' });
    // The test internet has no DNS for the real platforms: each of their checks would wait out
    // its whole 10 s. Pointed at a closed port of the platform's host, they fail at once (as
    // unreachable), and Netflix is checked at every interval.
    const unreachable: Record<string, PlatformDef> = {};
    for (const id of Object.keys(SHIPPED_PLATFORMS))
      unreachable[id] = mockPlatformEntry(id, `http://${platform.address}:9/`);
    const file = writePlatformsFile(bed, {
      ...unreachable,
      netflix: mockPlatformEntry('netflix', platform.url),
    });
    const args = (seconds: number) => [
      '--platforms-file',
      file,
      '--platform-check-seconds',
      String(seconds),
    ];
    verified = await bed.addRelay('tokyo1', 'asia-east', { extraArgs: args(CHECK_SECONDS) });
    flagged = await bed.addRelay('tokyo2', 'asia-east', { extraArgs: args(CHECK_SECONDS) });
    // An hour between its own checks: within this test it checks at start and when asked.
    onDemand = await bed.addRelay('zurich', 'global', { extraArgs: args(3600) });
    platform.setAnswers({
      [verified.address]: 'JP',
      [flagged.address]: 'proxy',
      [onDemand.address]: 'CH',
    });
    device = bed.control((await bed.newDevice(await bed.newAccount('premium'))).token);
  }, 120_000);
  afterAll(async () => {
    await bed?.stop();
  }, 60_000);

  it('shows the relay the platform serves as verified, and the flagged one as not', async () => {
    await expect
      .poll(() => netflixOf(verified), { timeout: 20_000, interval: 500 })
      .toMatchObject({ verified: true, verdict: 'ok', region: 'JP' });
    expect(await netflixOf(flagged)).toMatchObject({
      verified: false,
      verdict: 'proxy-detected',
      region: null,
    });
    expect((await netflixOf(verified))!.checked_age_seconds).toBeLessThanOrEqual(
      CHECK_SECONDS + HEARTBEAT_SECONDS + 2,
    );
    expect(await verifiedIn('asia-east')).toContain('netflix');
    // The platform was asked by the relays themselves, from their own addresses.
    expect(platform.requesters()).toEqual(
      expect.arrayContaining([verified.address, flagged.address, onDemand.address]),
    );
    // The relays log the platform and its verdict, never the probe's URL.
    await expect
      .poll(() => verified.process.output())
      .toMatch(/"platform":"netflix","verdict":"ok","catalogRegion":"JP"/);
    for (const r of [verified, flagged]) expect(r.process.output()).not.toMatch(/\/title\//);
  }, 60_000);

  it('lands a streaming connect for the platform on the verified relay, every time', async () => {
    // The client measures the flagged relay as the faster one: without a platform it goes there.
    const latencies = { [verified.nodeId]: 90, [flagged.nodeId]: 4 };
    const plain = await device.connect({
      body: { usage: 'streaming', region: 'asia-east', latencies },
    });
    expect(plain.node.id).toBe(flagged.nodeId);
    for (let i = 0; i < 10; i++) {
      const answer = await streamConnect('asia-east', latencies);
      expect(answer).toMatchObject({ mode: 'stream', node: { id: verified.nodeId } });
      expect(answer.routing.reasons[0]).toMatch(
        /^Netflix verified on this node \d+ s ago \(its own check, JP catalogue\)$/,
      );
    }
  }, 60_000);

  it('checks at once when the control plane asks', async () => {
    // Its check at start saw the proxy answer; the platform serves it now, but its next own
    // check is an hour away.
    expect(await netflixOf(onDemand)).toMatchObject({ verified: false, verdict: 'proxy-detected' });
    expect(await verifiedIn('global')).toEqual([]);
    await bed.admin.adminCheckPlatforms({ params: { id: onDemand.nodeId } });
    await expect
      .poll(() => netflixOf(onDemand), { timeout: 15_000, interval: 500 })
      .toMatchObject({ verified: true, region: 'CH' });
    expect(await verifiedIn('global')).toEqual(['netflix']);
  }, 60_000);

  it('stops choosing a relay within one check interval and a heartbeat of the platform flagging it', async () => {
    expect((await streamConnect('asia-east')).node.id).toBe(verified.nodeId);
    platform.setAnswers({
      [verified.address]: 'proxy',
      [flagged.address]: 'proxy',
      [onDemand.address]: 'CH',
    });
    const flaggedAt = Date.now();
    let refused: ApiError | undefined;
    const bound = (CHECK_SECONDS + HEARTBEAT_SECONDS) * 1000;
    // Polled a little past the bound: the check itself and the control plane's snapshot (1 s)
    // take their moment.
    while (Date.now() - flaggedAt < bound + 3_000) {
      try {
        await streamConnect('asia-east');
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        refused = e;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const took = Date.now() - flaggedAt;
    expect(refused, `still chosen ${took} ms after the platform flagged it`).toBeDefined();
    expect(refused!.status).toBe(409);
    expect(refused!.code).toBe('platform-unverified');
    expect(refused!.problem).toMatchObject({ platform: 'netflix', verified_regions: ['global'] });
    expect(refused!.detail).toMatch(/verified in: global/);
    expect(await netflixOf(verified)).toMatchObject({ verified: false, verdict: 'proxy-detected' });
    expect(await verifiedIn('asia-east')).toEqual([]);
    // Where it is verified, stream mode still connects.
    expect((await streamConnect('global')).node.id).toBe(onDemand.nodeId);
    // A platform outside stream mode is refused as such.
    const office = await refusal(
      device.connect({ body: { usage: 'remote-work', platform: 'netflix' } }),
    );
    expect(office.code).toBe('validation-failed');
  }, 60_000);
});
