// Applies the control plane's peer feed to the WireGuard interface and the firewall,
// incrementally: only what changed is sent, and other peers are never disturbed.
import type { Peer, PeersResponse } from '../../contracts/index.js';
import type { PeerOp, UapiClient } from './uapi.js';

export interface PeerEntry {
  deviceId: string;
  wireguardPublicKey: string;
  ferryPublicKey: string | null;
  ipv4: string;
  ipv6: string;
  bandwidthLimitMbps: number | null;
}

/** What a change needs beyond the WireGuard peers: the firewall's rate tiers. */
export interface LimitSink {
  setLimit(addresses: readonly string[], mbps: number | null): Promise<void>;
}

/** WireGuard's UAPI handles large sets, but one message per few thousand peers keeps memory flat. */
const OPS_PER_MESSAGE = 5_000;

export class PeerTable {
  private readonly byDevice = new Map<string, PeerEntry>();
  private readonly byKey = new Map<string, string>();

  constructor(
    private readonly uapi: UapiClient,
    private readonly limits: LimitSink,
    private readonly keepaliveSeconds: number | undefined,
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

  /** Applies one feed answer; returns how many peers were added, changed and removed. */
  async apply(feed: PeersResponse): Promise<{ upserts: number; removes: number }> {
    const wanted = new Map<string, PeerEntry | null>();
    for (const p of feed.peers) wanted.set(p.device_id, p.op === 'upsert' ? toEntry(p) : null);
    if (feed.snapshot) {
      for (const id of this.byDevice.keys()) if (!wanted.has(id)) wanted.set(id, null);
    }

    const ops: PeerOp[] = [];
    const limitChanges = new Map<number | null, string[]>();
    const next = new Map<string, PeerEntry | null>();
    for (const [id, entry] of wanted) {
      const old = this.byDevice.get(id);
      if (entry === null) {
        if (!old) continue;
        ops.push({ kind: 'remove', publicKey: old.wireguardPublicKey });
        pushAll(limitChanges, null, [old.ipv4, old.ipv6]);
        next.set(id, null);
        continue;
      }
      if (old && sameEntry(old, entry)) continue;
      // A rotated key: the old peer goes first so that the addresses move to the new one.
      if (old && old.wireguardPublicKey !== entry.wireguardPublicKey) {
        ops.push({ kind: 'remove', publicKey: old.wireguardPublicKey });
      }
      if (old && (old.ipv4 !== entry.ipv4 || old.ipv6 !== entry.ipv6))
        pushAll(limitChanges, null, [old.ipv4, old.ipv6]);
      ops.push({
        kind: 'upsert',
        peer: {
          publicKey: entry.wireguardPublicKey,
          allowedIps: [`${entry.ipv4}/32`, `${entry.ipv6}/128`],
          ...(this.keepaliveSeconds === undefined
            ? {}
            : { persistentKeepalive: this.keepaliveSeconds }),
        },
      });
      pushAll(limitChanges, entry.bandwidthLimitMbps, [entry.ipv4, entry.ipv6]);
      next.set(id, entry);
    }

    for (let i = 0; i < ops.length; i += OPS_PER_MESSAGE) {
      await this.uapi.set({}, ops.slice(i, i + OPS_PER_MESSAGE));
    }
    // Removals from the limits first, then additions, so that a moved address ends limited right.
    const unlimited = limitChanges.get(null);
    if (unlimited) await this.limits.setLimit(unlimited, null);
    for (const [mbps, addresses] of limitChanges)
      if (mbps !== null) await this.limits.setLimit(addresses, mbps);

    let upserts = 0;
    let removes = 0;
    for (const [id, entry] of next) {
      const old = this.byDevice.get(id);
      if (old) this.byKey.delete(old.wireguardPublicKey);
      if (entry === null) {
        this.byDevice.delete(id);
        removes++;
      } else {
        this.byDevice.set(id, entry);
        this.byKey.set(entry.wireguardPublicKey, id);
        upserts++;
      }
    }
    return { upserts, removes };
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

function pushAll<K>(map: Map<K, string[]>, key: K, values: string[]): void {
  const list = map.get(key);
  if (list) list.push(...values);
  else map.set(key, [...values]);
}
