// Applies the control plane's peer feed to the WireGuard interfaces and the firewall,
// incrementally: only what changed is sent, other peers are never disturbed, and progress is
// kept batch by batch so that a failure part-way resumes instead of starting over.
import { shardOf, type Peer, type PeersResponse } from '../../contracts/index.js';
import type { PeerOp, UapiClient } from './uapi.js';

export interface PeerEntry {
  deviceId: string;
  wireguardPublicKey: string;
  ferryPublicKey: string | null;
  ipv4: string;
  ipv6: string;
  bandwidthLimitMbps: number | null;
}

/** The firewall's rate tiers, as the table needs them. */
export interface LimitSink {
  setLimit(addresses: readonly string[], mbps: number | null): Promise<void>;
}

/** The UAPI socket of the interface that serves a shard (started on demand). */
export type ShardUapi = (shard: number) => Promise<UapiClient>;

/** Devices per batch: a UAPI message per shard, then the batch is recorded as done. */
const DEVICES_PER_BATCH = 5_000;

interface Change {
  id: string;
  old: PeerEntry | undefined;
  next: PeerEntry | null;
}

export class PeerTable {
  private readonly byDevice = new Map<string, PeerEntry>();
  private readonly byKey = new Map<string, string>();

  constructor(
    private readonly uapiOf: ShardUapi,
    private readonly limits: LimitSink,
  ) {}

  get size(): number {
    return this.byDevice.size;
  }

  deviceOfKey(publicKey: string): string | undefined {
    return this.byKey.get(publicKey);
  }

  entries(): IterableIterator<PeerEntry> {
    return this.byDevice.values();
  }

  /** Applies one feed answer; returns how many peers were added or changed, and removed. */
  async apply(feed: PeersResponse): Promise<{ upserts: number; removes: number }> {
    const wanted = new Map<string, PeerEntry | null>();
    for (const p of feed.peers) wanted.set(p.device_id, p.op === 'upsert' ? toEntry(p) : null);
    if (feed.snapshot) {
      for (const id of this.byDevice.keys()) if (!wanted.has(id)) wanted.set(id, null);
    }
    const changes: Change[] = [];
    for (const [id, next] of wanted) {
      const old = this.byDevice.get(id);
      if (next === null ? old === undefined : old !== undefined && sameEntry(old, next)) continue;
      changes.push({ id, old, next });
    }
    // Removals first: they free addresses (and wireguard-go's peer slots) for what follows.
    changes.sort((a, b) => Number(a.next !== null) - Number(b.next !== null));

    let upserts = 0;
    let removes = 0;
    for (let i = 0; i < changes.length; i += DEVICES_PER_BATCH) {
      const batch = changes.slice(i, i + DEVICES_PER_BATCH);
      await this.send(batch);
      for (const c of batch) {
        if (c.old) this.byKey.delete(c.old.wireguardPublicKey);
        if (c.next === null) {
          this.byDevice.delete(c.id);
          removes++;
        } else {
          this.byDevice.set(c.id, c.next);
          this.byKey.set(c.next.wireguardPublicKey, c.id);
          upserts++;
        }
      }
    }
    return { upserts, removes };
  }

  private async send(batch: readonly Change[]): Promise<void> {
    const opsByShard = new Map<number, PeerOp[]>();
    const add = (shard: number, op: PeerOp) => {
      const list = opsByShard.get(shard);
      if (list) list.push(op);
      else opsByShard.set(shard, [op]);
    };
    const unlimit: string[] = [];
    const limitBy = new Map<number, string[]>();
    for (const { old, next } of batch) {
      const moved =
        old &&
        next &&
        (old.wireguardPublicKey !== next.wireguardPublicKey || old.ipv4 !== next.ipv4);
      // A rotated key: the old peer goes first so that the addresses move to the new one.
      if (old && (next === null || moved))
        add(shardOf(old.ipv4), { kind: 'remove', publicKey: old.wireguardPublicKey });
      if (old && (next === null || old.ipv4 !== next.ipv4 || old.ipv6 !== next.ipv6))
        unlimit.push(old.ipv4, old.ipv6);
      if (next === null) continue;
      add(shardOf(next.ipv4), {
        kind: 'upsert',
        peer: {
          publicKey: next.wireguardPublicKey,
          allowedIps: [`${next.ipv4}/32`, `${next.ipv6}/128`],
        },
      });
      if (next.bandwidthLimitMbps === null) unlimit.push(next.ipv4, next.ipv6);
      else {
        const list = limitBy.get(next.bandwidthLimitMbps) ?? [];
        list.push(next.ipv4, next.ipv6);
        limitBy.set(next.bandwidthLimitMbps, list);
      }
    }
    for (const [shard, ops] of opsByShard) await (await this.uapiOf(shard)).set({}, ops);
    if (unlimit.length) await this.limits.setLimit(unlimit, null);
    for (const [mbps, addresses] of limitBy) await this.limits.setLimit(addresses, mbps);
  }
}

function toEntry(p: Peer): PeerEntry {
  if (!p.wireguard_public_key || !p.tunnel_ipv4 || !p.tunnel_ipv6) {
    throw new Error(`feed upsert for ${p.device_id} lacks keys or addresses`);
  }
  return {
    deviceId: p.device_id,
    wireguardPublicKey: p.wireguard_public_key,
    ferryPublicKey: p.ferry_public_key ?? null,
    ipv4: p.tunnel_ipv4,
    ipv6: p.tunnel_ipv6,
    bandwidthLimitMbps: p.bandwidth_limit_mbps ?? null,
  };
}

function sameEntry(a: PeerEntry, b: PeerEntry): boolean {
  return (
    a.wireguardPublicKey === b.wireguardPublicKey &&
    a.ferryPublicKey === b.ferryPublicKey &&
    a.ipv4 === b.ipv4 &&
    a.ipv6 === b.ipv6 &&
    a.bandwidthLimitMbps === b.bandwidthLimitMbps
  );
}
