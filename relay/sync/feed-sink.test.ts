// A feed answer that cannot be applied: the relay says which data plane is degraded and why,
// counts it, asks again from the same version, and recovers once the answer applies; a
// revocation WireGuard will not apply stops the relay.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ControlClient, PeersResponse } from '../../contracts/index.js';
import { RelayHealth } from '../health.js';
import type { UapiClient } from '../../platform/os/uapi.js';
import { PeerTable, type LimitSink } from '../wireguard/peer-table.js';
import { FeedFollower } from './feed-follower.js';
import { peerTableSink } from './feed-sink.js';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const answer = (version: number, ids: number[]): PeersResponse => ({
  version,
  snapshot: version === 1,
  peers: ids.map((n) => ({
    device_id: `dev_${n}`,
    op: 'upsert',
    wireguard_public_key: key(n),
    ferry_public_key: key(100 + n),
    tunnel_ipv4: `10.64.0.${n}`,
    tunnel_ipv6: `fd66:6572:7279::${n}`,
    bandwidth_limit_mbps: 20,
  })),
});

function setup() {
  const failures = { uapi: 0, limits: 0 };
  const uapi = {
    set: async () => {
      if (failures.uapi > 0 && failures.uapi--) throw new Error('UAPI errno -12');
    },
  } as unknown as UapiClient;
  const limits: LimitSink = {
    setLimit: async () => {
      if (failures.limits > 0 && failures.limits--) throw new Error('nft: Operation not permitted');
    },
  };
  const health = new RelayHealth(pino({ level: 'silent' }));
  const table = new PeerTable(async () => uapi, limits);
  const stops: string[] = [];
  const sink = peerTableSink(table, health, { ferry: true, failClosed: (r) => stops.push(r) });
  return { failures, health, table, sink, stops };
}

describe('applying the feed', () => {
  it('reports WireGuard degraded while its updates fail, and recovers', async () => {
    const { failures, health, table, sink } = setup();
    failures.uapi = 1;
    expect(await sink.apply(answer(1, [2, 3]))).toMatchObject({ retry: true });
    expect(health.degraded()).toEqual(['wireguard']);
    expect(health.reasons('wireguard')).toEqual(['UAPI errno -12']);
    expect(health.counters().peerUpdateFailures.wireguard).toBe(1);

    expect(await sink.apply(answer(1, [2, 3]))).toEqual({ upserts: 2, removes: 0 });
    expect(table.size).toBe(2);
    expect(health.degraded()).toEqual([]);
  });

  it('reports Ferry degraded too when rate limits fail, since its devices wait for them', async () => {
    const { failures, health, sink } = setup();
    failures.limits = 1;
    expect(await sink.apply(answer(1, [2]))).toMatchObject({ retry: true });
    expect(health.degraded().sort()).toEqual(['ferry', 'wireguard']);
    await sink.apply(answer(1, [2]));
    expect(health.degraded()).toEqual([]);
  });

  it('stops the relay when WireGuard will not let a revoked peer go', async () => {
    const { failures, health, table, sink, stops } = setup();
    await sink.apply(answer(1, [2, 3]));
    // One failed removal is tried again at once; it goes through.
    failures.uapi = 1;
    const revoke = (version: number, n: number): PeersResponse => ({
      version,
      snapshot: false,
      peers: [{ device_id: `dev_${n}`, op: 'remove' }],
    });
    expect(await sink.apply(revoke(2, 2))).toEqual({ upserts: 0, removes: 1 });
    expect(stops).toEqual([]);
    // Twice in a row: the relay must not keep serving a peer it cannot revoke.
    failures.uapi = 2;
    expect(await sink.apply(revoke(3, 3))).toMatchObject({ retry: true });
    expect(stops).toEqual(['WireGuard peers could not be removed: UAPI errno -12']);
    expect(health.degraded()).toEqual(['wireguard']);
    expect(table.deviceOfKey(key(3))).toBe('dev_3');
  });

  it('asks again from the same version when an answer could not be applied', async () => {
    const asked: { after: number; wait: number; timeoutMs: number }[] = [];
    const answers = [answer(1, [2]), answer(2, [3]), answer(3, [3, 4])];
    const stop = new AbortController();
    const client: Pick<ControlClient, 'nodePeers'> = {
      nodePeers: async (input) => {
        asked.push({
          after: Number(input?.query?.after),
          wait: Number(input?.query?.wait),
          timeoutMs: input?.timeoutMs ?? 0,
        });
        const next = answers.shift();
        if (!next) stop.abort();
        return next ?? answer(9, []);
      },
    };
    let applies = 0;
    const follower = new FeedFollower(
      client,
      {
        apply: async () => ({
          upserts: 1,
          removes: 0,
          ...(++applies === 2 ? { retry: true } : {}),
        }),
      },
      pino({ level: 'silent' }),
    );
    await follower.run(stop.signal);
    expect(asked.map((a) => a.after)).toEqual([0, 1, 1, 3]);
    // A snapshot at once, then long polls, each given time to be held by the control plane.
    expect(asked.map((a) => a.wait)).toEqual([0, 25, 25, 25]);
    for (const a of asked) expect(a.timeoutMs).toBeGreaterThan(a.wait * 1000);
  });
});
