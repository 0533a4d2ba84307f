// The peer feed in the domain, on memory ports: snapshots and deltas per region as the plans
// allow, a snapshot for a relay whose version the feed cannot serve, and long polls that wake on
// a change.
import { afterEach, describe, expect, it } from 'vitest';
import { memoryDomain, type MemoryDomain } from './testing/memory-domain.js';

describe('PeerFeed', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());
  const signal = () => new AbortController().signal;

  it('puts a device on the nodes of the regions its plan allows, with its plan’s limits', async () => {
    d = memoryDomain();
    const basic = await d.signIn(await d.createAccount());
    const premiumAccount = await d.createAccount();
    await d.accounts.setPlan(premiumAccount, 'premium');
    const premium = await d.signIn(premiumAccount);

    const asia = await d.feed.read('asia-east', 0, 0, signal());
    expect(asia.snapshot).toBe(true);
    expect(asia.peers.map((p) => p.device_id)).toEqual([basic.deviceId, premium.deviceId]);
    expect(asia.peers[0]).toMatchObject({
      op: 'upsert',
      tunnel_ipv4: basic.auth.tunnelIpv4,
      bandwidth_limit_mbps: 20,
    });
    expect(asia.peers[1]).toMatchObject({ bandwidth_limit_mbps: null, data_cap_bytes: null });
    // The basic plan has no European region.
    const europe = await d.feed.read('eu-west', 0, 0, signal());
    expect(europe.peers.map((p) => p.device_id)).toEqual([premium.deviceId]);
  });

  it('answers a delta after a version, and a snapshot for a version it never gave', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    const a = await d.signIn(account);
    const start = await d.feed.read('asia-east', 0, 0, signal());
    const b = await d.signIn(account);
    const delta = await d.feed.read('asia-east', start.version, 0, signal());
    expect(delta).toMatchObject({ snapshot: false, version: start.version + 1 });
    expect(delta.peers.map((p) => p.device_id)).toEqual([b.deviceId]);
    expect(await d.feed.read('asia-east', delta.version, 0, signal())).toEqual({
      version: delta.version,
      snapshot: false,
      peers: [],
    });
    // A relay from a reset database is ahead of the feed: it gets everything again.
    const reset = await d.feed.read('asia-east', delta.version + 50, 0, signal());
    expect(reset.snapshot).toBe(true);
    expect(reset.peers.map((p) => p.device_id)).toEqual([a.deviceId, b.deviceId]);
  });

  it('wakes a long poll when a change is announced', async () => {
    d = memoryDomain();
    const account = await d.createAccount();
    await d.signIn(account);
    const { version } = await d.feed.read('asia-east', 0, 0, signal());
    const waiting = d.feed.read('asia-east', version, 30, signal());
    const b = await d.signIn(account);
    const answer = await waiting;
    expect(answer.peers.map((p) => p.device_id)).toEqual([b.deviceId]);
  });

  it('ends a long poll with no change when its request is aborted', async () => {
    d = memoryDomain();
    await d.signIn(await d.createAccount());
    const { version } = await d.feed.read('asia-east', 0, 0, signal());
    const abort = new AbortController();
    const waiting = d.feed.read('asia-east', version, 30, abort.signal);
    // Once it waits: PeerFeed listens for the abort from then on.
    await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect(await waiting).toEqual({ version, snapshot: false, peers: [] });
  });
});
