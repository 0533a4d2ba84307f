// The peer table against a fake UAPI: incremental changes, snapshots, rotation order, shards,
// rate tiers, and progress kept across a failure.
import { describe, expect, it } from 'vitest';
import type { Peer, PeersResponse } from '../../contracts/index.js';
import { PeerTable, type LimitSink } from './peer-table.js';
import { formatSet, type PeerOp, type UapiClient } from './uapi.js';

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
    ).toEqual({ upserts: 2, removes: 0 });
    expect(ops()).toHaveLength(2);
    expect(limits.limit.get('10.64.0.2')).toBe(20);
    expect(limits.limit.has('10.64.0.3')).toBe(false);
    expect(table.deviceOfKey(key(2))).toBe('dev_2');

    // The same peer again changes nothing.
    expect(await table.apply(feed([peer(2)]))).toEqual({ upserts: 0, removes: 0 });
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
    const last = shards.get(0)!.sets.at(-1)!;
    expect(last.map((o) => o.kind)).toEqual(['remove', 'upsert']);
    expect(last[0]).toEqual({ kind: 'remove', publicKey: key(2) });
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
    expect(await table.apply(feed(many, true))).toEqual({ upserts: 2_000, removes: 0 });
    expect(table.size).toBe(7_000);
  });

  it('formats UAPI set messages as WireGuard expects', () => {
    const text = formatSet({ privateKey: key(1), listenPort: 51820 }, [
      { kind: 'upsert', peer: { publicKey: key(2), allowedIps: ['10.64.0.2/32'] } },
      { kind: 'remove', publicKey: key(3) },
    ]);
    expect(text).toBe(
      [
        'set=1',
        `private_key=${'01'.repeat(32)}`,
        'listen_port=51820',
        `public_key=${'02'.repeat(32)}`,
        'replace_allowed_ips=true',
        'allowed_ip=10.64.0.2/32',
        `public_key=${'03'.repeat(32)}`,
        'remove=true',
        '',
        '',
      ].join('\n'),
    );
  });
});
