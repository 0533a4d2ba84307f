// Applies the control plane's peer feed to the WireGuard interfaces, the firewall and the other
// data plane (Ferry), incrementally: only what changed is sent, other peers are never
// disturbed, revocations come before anything else, and progress is kept batch by batch so that
// a failure part-way resumes instead of starting over.
import { shardOf, type Peer, type PeersResponse } from '../../contracts/index.js';
import type { UapiPeerOp as PeerOp } from '../../platform/os/uapi-text.js';
import type { UapiClient } from '../../platform/os/uapi.js';

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

/**
 * Another data plane serving the same devices (the Ferry server), driven by the same feed. It
 * keeps its own state: what it holds need not match what WireGuard holds after a failure.
 */
export interface DevicePlane {
  /**
   * First with every feed answer, before anything that can fail: devices that leave (in a
   * snapshot: every one not in it) or whose key or address changes lose access. Never throws.
   */
  revoke(wanted: ReadonlyMap<string, PeerEntry | null>, snapshot: boolean): void;
  /** Devices to let in (or keep), once the firewall holds their rate limits. Never rejects. */
  admit(entries: readonly PeerEntry[]): Promise<void>;
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

export interface ApplyResult {
  upserts: number;
  removes: number;
  /** Feed entries that could not be used: those devices are kept off the node. */
  refused: { id: string; reason: string }[];
}

/**
 * Where applying a feed answer failed: the WireGuard interfaces would not take peers, the
 * firewall's rate limits, or the WireGuard interfaces would not let peers go (twice in a row:
 * revocations cannot be applied, and the caller must stop serving WireGuard).
 */
export class PeerApplyError extends Error {
  constructor(
    readonly stage: 'wireguard' | 'limits' | 'revocations',
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'PeerApplyError';
  }
}

export class PeerTable {
  /** What the WireGuard interfaces hold, by device. */
  private readonly byDevice = new Map<string, PeerEntry>();
  private readonly byKey = new Map<string, string>();

  constructor(
    private readonly uapiOf: ShardUapi,
    private readonly limits: LimitSink,
    private readonly other?: DevicePlane,
  ) {}

  get size(): number {
    return this.byDevice.size;
  }

  deviceOfKey(publicKey: string): string | undefined {
    return this.byKey.get(publicKey);
  }

  entryOf(deviceId: string): PeerEntry | undefined {
    return this.byDevice.get(deviceId);
  }

  entries(): IterableIterator<PeerEntry> {
    return this.byDevice.values();
  }

  /**
   * Applies one feed answer: revocations first on every data plane (so that nothing else
   * failing can hold them up), then, batch by batch, rate limits before the devices they limit
   * are let in. Throws a PeerApplyError when a step fails; what was done is kept, and the same
   * answer applied again resumes.
   */
  async apply(feed: PeersResponse): Promise<ApplyResult> {
    const wanted = new Map<string, PeerEntry | null>();
    const refused: ApplyResult['refused'] = [];
    for (const p of feed.peers) {
      if (p.op === 'remove') {
        wanted.set(p.device_id, null);
        continue;
      }
      const entry = toEntry(p);
      // Fail closed: an entry that cannot be used removes the device rather than keep its old one.
      if (typeof entry === 'string') refused.push({ id: p.device_id, reason: entry });
      wanted.set(p.device_id, typeof entry === 'string' ? null : entry);
    }
    this.other?.revoke(wanted, feed.snapshot);
    if (feed.snapshot) {
      for (const id of this.byDevice.keys()) if (!wanted.has(id)) wanted.set(id, null);
    }
    const changes: Change[] = [];
    for (const [id, next] of wanted) {
      const old = this.byDevice.get(id);
      if (next === null ? old === undefined : old !== undefined && sameEntry(old, next)) continue;
      changes.push({ id, old, next });
    }

    const removes = await this.removeLeaving(changes);
    let upserts = 0;
    const arriving = changes.filter((c) => c.next !== null);
    for (let i = 0; i < arriving.length; i += DEVICES_PER_BATCH) {
      const batch = arriving.slice(i, i + DEVICES_PER_BATCH);
      await this.admit(batch);
      for (const c of batch) {
        if (c.old) this.byKey.delete(c.old.wireguardPublicKey);
        this.byDevice.set(c.id, c.next!);
        this.byKey.set(c.next!.wireguardPublicKey, c.id);
        upserts++;
      }
    }
    return { upserts, removes, refused };
  }

  /**
   * Takes every peer that goes (or whose key or address changes) off the interfaces, all before
   * any upsert, and frees the addresses no longer held from their rate tiers.
   */
  private async removeLeaving(changes: readonly Change[]): Promise<number> {
    const leaving = changes.filter((c) => c.old && (c.next === null || moved(c.old, c.next)));
    let removes = 0;
    for (let i = 0; i < leaving.length; i += DEVICES_PER_BATCH) {
      const batch = leaving.slice(i, i + DEVICES_PER_BATCH);
      const opsByShard = new Map<number, PeerOp[]>();
      const unlimit: string[] = [];
      for (const { old, next } of batch) {
        addTo(opsByShard, shardOf(old!.ipv4), {
          kind: 'remove',
          publicKey: old!.wireguardPublicKey,
        });
        if (next === null || old!.ipv4 !== next.ipv4) unlimit.push(old!.ipv4);
        if (next === null || old!.ipv6 !== next.ipv6) unlimit.push(old!.ipv6);
      }
      try {
        await this.sendOps(opsByShard);
      } catch {
        // A revocation is not left for later: one more try, then it is the caller's to fail closed.
        try {
          await this.sendOps(opsByShard);
        } catch (e) {
          throw new PeerApplyError('revocations', (e as Error).cause ?? e);
        }
      }
      for (const c of batch) {
        if (c.next !== null) continue;
        this.byDevice.delete(c.id);
        this.byKey.delete(c.old!.wireguardPublicKey);
        removes++;
      }
      await this.setLimits(unlimit, null);
    }
    return removes;
  }

  /** Rate limits first, then the other data plane and the interfaces let the devices in. */
  private async admit(batch: readonly Change[]): Promise<void> {
    const limitBy = new Map<number | null, string[]>();
    const opsByShard = new Map<number, PeerOp[]>();
    for (const { next } of batch) {
      const e = next!;
      const list = limitBy.get(e.bandwidthLimitMbps) ?? [];
      list.push(e.ipv4, e.ipv6);
      limitBy.set(e.bandwidthLimitMbps, list);
      addTo(opsByShard, shardOf(e.ipv4), {
        kind: 'upsert',
        peer: { publicKey: e.wireguardPublicKey, allowedIps: [`${e.ipv4}/32`, `${e.ipv6}/128`] },
      });
    }
    for (const [mbps, addresses] of limitBy) await this.setLimits(addresses, mbps);
    await this.other?.admit(batch.map((c) => c.next!));
    await this.sendOps(opsByShard);
  }

  private async sendOps(opsByShard: ReadonlyMap<number, PeerOp[]>): Promise<void> {
    try {
      for (const [shard, ops] of opsByShard) await (await this.uapiOf(shard)).set({}, ops);
    } catch (e) {
      throw new PeerApplyError('wireguard', e);
    }
  }

  private async setLimits(addresses: readonly string[], mbps: number | null): Promise<void> {
    if (addresses.length === 0) return;
    try {
      await this.limits.setLimit(addresses, mbps);
    } catch (e) {
      throw new PeerApplyError('limits', e);
    }
  }
}

function addTo(opsByShard: Map<number, PeerOp[]>, shard: number, op: PeerOp): void {
  const list = opsByShard.get(shard);
  if (list) list.push(op);
  else opsByShard.set(shard, [op]);
}

/** A new key or address: the old peer goes before the new one comes. */
function moved(old: PeerEntry, next: PeerEntry): boolean {
  return (
    old.wireguardPublicKey !== next.wireguardPublicKey ||
    old.ipv4 !== next.ipv4 ||
    old.ipv6 !== next.ipv6
  );
}

/** The entry of a feed upsert, or why it cannot be used. */
function toEntry(p: Peer): PeerEntry | string {
  if (!p.wireguard_public_key || !p.tunnel_ipv4 || !p.tunnel_ipv6)
    return 'feed upsert lacks keys or addresses';
  try {
    shardOf(p.tunnel_ipv4);
  } catch (e) {
    return (e as Error).message;
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
