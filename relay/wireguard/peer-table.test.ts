// The peer table against a fake UAPI: incremental changes, snapshots, rotation order, shards,
// rate tiers, progress kept across a failure, revocations before anything that can fail, feed
// entries it cannot use kept off the node, and rate limits before admission.
import { describe, expect, it } from 'vitest';
import type { Peer, PeersResponse } from '../../contracts/index.js';
import type { UapiPeerOp as PeerOp } from '../../platform/os/uapi-text.js';
import { PeerApplyError, PeerTable, type DevicePlane, type LimitSink } from './peer-table.js';
import type { UapiClient } from '../../platform/os/uapi.js';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');

function peer(id: number, extra: Partial<Peer> = {}): Peer {
  return {
    device_id: `dev_${id}`,
    op: 'upsert',
    wireguard_public_key: key(id),
    ferry_public_key: key(100 + id),
    tunnel_ipv4: `10.64.0.${id}`,
    tunnel_ipv6: `fd66:6572:7279::${id}`,
    bandwidth_limit_mbps: 20,
    ...extra,
  };
}

class FakeUapi {
  readonly sets: PeerOp[][] = [];
  failNext = false;
  async set(_device: object, ops: PeerOp[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('UAPI errno -22');
    }
    this.sets.push(ops);
  }
}

class FakeLimits implements LimitSink {
  readonly limit = new Map<string, number>();
  async setLimit(addresses: readonly string[], mbps: number | null): Promise<void> {
    for (const a of addresses) {
      if (mbps === null) this.limit.delete(a);
      else this.limit.set(a, mbps);
    }
  }
}

function setup() {
  const shards = new Map<number, FakeUapi>();
  const uapiOf = async (k: number) => {
    if (!shards.has(k)) shards.set(k, new FakeUapi());
    return shards.get(k) as unknown as UapiClient;
  };
  const limits = new FakeLimits();
  const table = new PeerTable(uapiOf, limits);
  const ops = () => [...shards.values()].flatMap((s) => s.sets.flat());
  return { table, shards, limits, ops, uapiOf };
}

const feed = (peers: Peer[], snapshot = false, version = 1): PeersResponse => ({
  version,
  snapshot,
  peers,
});

describe('PeerTable', () => {
  it('applies a snapshot, then only what a delta changes', async () => {
    const { table, ops, limits } = setup();
    expect(
      await table.apply(feed([peer(2), peer(3, { bandwidth_limit_mbps: null })], true)),
    ).toEqual({ upserts: 2, removes: 0, refused: [] });
    expect(ops()).toHaveLength(2);
    expect(limits.limit.get('10.64.0.2')).toBe(20);
    expect(limits.limit.has('10.64.0.3')).toBe(false);
    expect(table.deviceOfKey(key(2))).toBe('dev_2');

    // The same peer again changes nothing.
    expect(await table.apply(feed([peer(2)]))).toEqual({ upserts: 0, removes: 0, refused: [] });
    expect(ops()).toHaveLength(2);
  });

  it('removes what a snapshot no longer holds', async () => {
    const { table, ops } = setup();
    await table.apply(feed([peer(2), peer(3)], true));
    await table.apply(feed([peer(3)], true));
    expect(ops().at(-1)).toEqual({ kind: 'remove', publicKey: key(2) });
    expect(table.size).toBe(1);
    expect(table.deviceOfKey(key(2))).toBeUndefined();
  });

  it('rotates a key by removing the old peer before adding the new one', async () => {
    const { table, shards } = setup();
    await table.apply(feed([peer(2)], true));
    await table.apply(feed([peer(2, { wireguard_public_key: key(50) })]));
    const [removal, upsert] = shards.get(0)!.sets.slice(-2);
    expect(removal).toEqual([{ kind: 'remove', publicKey: key(2) }]);
    expect(upsert!.map((o) => o.kind)).toEqual(['upsert']);
    expect(table.deviceOfKey(key(50))).toBe('dev_2');
    expect(table.deviceOfKey(key(2))).toBeUndefined();
  });

  it('sends each device to the interface of its shard', async () => {
    const { table, shards } = setup();
    await table.apply(
      feed(
        [peer(2), peer(9, { tunnel_ipv4: '10.65.0.7', tunnel_ipv6: 'fd66:6572:7279::1:7' })],
        true,
      ),
    );
    expect(
      shards
        .get(0)!
        .sets.flat()
        .map((o) => o.kind === 'upsert' && o.peer.allowedIps[0]),
    ).toEqual(['10.64.0.2/32']);
    expect(
      shards
        .get(1)!
        .sets.flat()
        .map((o) => o.kind === 'upsert' && o.peer.allowedIps[0]),
    ).toEqual(['10.65.0.7/32']);
  });

  it('keeps the progress made before a failure and resumes from it', async () => {
    const { table, shards, uapiOf } = setup();
    await uapiOf(0);
    const many = Array.from({ length: 7_000 }, (_, i) =>
      peer(i + 2, {
        tunnel_ipv4: `10.64.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`,
        tunnel_ipv6: `fd66:6572:7279::${(i + 2).toString(16)}`,
      }),
    );
    // The first batch (5,000 devices) goes through; the second fails.
    const fake = shards.get(0)!;
    const realSet = fake.set.bind(fake);
    let calls = 0;
    fake.set = async (d, ops) => {
      if (++calls === 2) throw new Error('UAPI errno -22');
      return realSet(d, ops);
    };
    await expect(table.apply(feed(many, true))).rejects.toThrow(/errno -22/);
    expect(table.size).toBe(5_000);
    expect(await table.apply(feed(many, true))).toMatchObject({ upserts: 2_000, removes: 0 });
    expect(table.size).toBe(7_000);
  });

  it('removes what leaves before any upsert, so that a failing upsert holds up no revocation', async () => {
    const { shards, limits, uapiOf } = setup();
    const revoked: string[][] = [];
    const other: DevicePlane = {
      revoke: (wanted) => revoked.push([...wanted].filter(([, e]) => e === null).map(([id]) => id)),
      admit: async () => {},
    };
    const withFerry = new PeerTable(uapiOf, limits, other);
    await uapiOf(0);
    await withFerry.apply(feed([peer(2), peer(3)], true));
    // One device is revoked and one rotates its key while a new one arrives; every upsert fails.
    const fake = shards.get(0)!;
    const realSet = fake.set.bind(fake);
    fake.set = async (d, ops) => {
      if (ops.some((o) => o.kind === 'upsert')) throw new Error('UAPI errno -12');
      return realSet(d, ops);
    };
    const answer = feed([
      { device_id: 'dev_2', op: 'remove' },
      peer(3, { wireguard_public_key: key(60) }),
      peer(4),
    ]);
    const failure = await withFerry.apply(answer).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PeerApplyError);
    expect((failure as PeerApplyError).stage).toBe('wireguard');
    expect(fake.sets.at(-1)).toEqual([
      { kind: 'remove', publicKey: key(2) },
      { kind: 'remove', publicKey: key(3) },
    ]);
    expect(revoked.at(-1)).toEqual(['dev_2']);
    expect(withFerry.deviceOfKey(key(2))).toBeUndefined();
    expect(limits.limit.has('10.64.0.2')).toBe(false);
  });

  it('keeps a device whose feed entry cannot be used off the node, and applies the rest', async () => {
    const { table, ops } = setup();
    await table.apply(feed([peer(2), peer(3)], true));
    const result = await table.apply(
      feed([
        peer(2, { tunnel_ipv4: '192.0.2.9' }),
        peer(3, { wireguard_public_key: undefined }),
        peer(5),
      ]),
    );
    expect(result.upserts).toBe(1);
    expect(result.removes).toBe(2);
    expect(result.refused.map((r) => r.id).sort()).toEqual(['dev_2', 'dev_3']);
    expect(result.refused[0]!.reason).toMatch(/outside|lacks/);
    expect(table.deviceOfKey(key(2))).toBeUndefined();
    expect(table.deviceOfKey(key(3))).toBeUndefined();
    expect(table.deviceOfKey(key(5))).toBe('dev_5');
    expect(ops().filter((o) => o.kind === 'remove')).toHaveLength(2);
  });

  it('lets no device in before its rate limit holds', async () => {
    const { shards, uapiOf } = setup();
    const admitted: string[] = [];
    const other: DevicePlane = {
      revoke: () => {},
      admit: async (entries) => void admitted.push(...entries.map((e) => e.deviceId)),
    };
    const failing: LimitSink = {
      setLimit: async () => {
        throw new Error('nft: No buffer space available');
      },
    };
    const table = new PeerTable(uapiOf, failing, other);
    const failure = await table.apply(feed([peer(2)], true)).catch((e: unknown) => e);
    expect((failure as PeerApplyError).stage).toBe('limits');
    expect(admitted).toEqual([]);
    expect([...shards.values()].flatMap((s) => s.sets.flat())).toEqual([]);
    expect(table.size).toBe(0);
  });
});
