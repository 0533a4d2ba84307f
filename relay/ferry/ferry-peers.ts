// The Ferry data plane's peer set, kept in line with the feed one change at a time (never the
// whole list): revocations go first, whatever else fails, and must be confirmed; new peers are
// let in only once the firewall holds their rate limits; failed updates are retried with
// backoff, counted and reported as degraded health; and a data plane that cannot confirm a
// revocation is stopped rather than left serving revoked devices (fail closed).
import { shardOf } from '../../contracts/index.js';
import type { PeerRejection, PeerStats, ServerPeer, ServerTunnel } from '../../native/index.js';
import { reasonOf, type RelayHealth } from '../health.js';
import type { DevicePlane, PeerEntry } from '../wireguard/peer-table.js';

export interface FerryPeersOptions {
  health: RelayHealth;
  /**
   * Makes replies to a shard's devices return through Ferry; awaited before the shard's first
   * peer is let in.
   */
  routeShard(shard: number): Promise<void>;
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** Health problem names of this plane (see RelayHealth). */
const UPDATES = 'peer-updates';
const ROUTES = 'reply-routes';
const DATA_PLANE = 'data-plane';

function toServerPeer(e: PeerEntry): ServerPeer | null {
  return e.ferryPublicKey === null
    ? null
    : { id: e.deviceId, publicKey: e.ferryPublicKey, address: e.ipv4 };
}

const samePeer = (a: ServerPeer, b: ServerPeer) =>
  a.publicKey === b.publicKey && a.address === b.address;

export class FerryPeers implements DevicePlane {
  /** The peers the feed allows, by device id: what the data plane should hold. */
  private readonly want = new Map<string, ServerPeer>();
  /** Ids whose data-plane entry may differ from `want`: sent (again) by the next flush. */
  private readonly pending = new Set<string>();
  /** Shards whose reply route exists. */
  private readonly routed = new Set<number>();
  /** The reason last logged for each refused id, so that retries do not repeat the log line. */
  private readonly refusedWhy = new Map<string, string>();
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs: number;

  constructor(
    private readonly tunnel: ServerTunnel,
    private readonly o: FerryPeersOptions,
  ) {
    this.backoffMs = o.retryMinMs ?? 1_000;
  }

  /** Peers the feed allows on Ferry (some may be pending or refused by the data plane). */
  get size(): number {
    return this.want.size;
  }

  /** Ids not yet known to be in the data plane as wanted (a failed or refused update). */
  pendingIds(): string[] {
    return [...this.pending];
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  revoke(wanted: ReadonlyMap<string, PeerEntry | null>, snapshot: boolean): void {
    const leave = (id: string) => {
      this.want.delete(id);
      this.pending.add(id);
    };
    for (const [id, next] of wanted) {
      const held = this.want.get(id);
      if (!held) continue;
      const peer = next && toServerPeer(next);
      // A new key or address is let in again by admit(), after the firewall: the old one goes now.
      if (!peer || !samePeer(peer, held)) leave(id);
    }
    if (snapshot) for (const id of [...this.want.keys()]) if (!wanted.has(id)) leave(id);
    this.flush();
  }

  async admit(entries: readonly PeerEntry[]): Promise<void> {
    for (const e of entries) {
      const peer = toServerPeer(e);
      const held = this.want.get(e.deviceId);
      if (!peer) {
        if (held) {
          this.want.delete(e.deviceId);
          this.pending.add(e.deviceId);
        }
        continue;
      }
      if (held && samePeer(held, peer)) continue;
      this.want.set(peer.id, peer);
      this.pending.add(peer.id);
    }
    await this.routePending();
    this.flush();
  }

  /** Per-peer traffic, for metering and liveness (none once the data plane stopped). */
  stats(): PeerStats[] {
    return this.stopped ? [] : this.tunnel.peerStats();
  }

  /** The data plane died (a thread stopped): it carries nothing, and nothing more is sent to it. */
  dataPlaneFailed(reason: string): void {
    this.stop(reason);
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Adds the reply routes of the shards that pending peers need. */
  private async routePending(): Promise<void> {
    const shards = new Set<number>();
    for (const id of this.pending) {
      const peer = this.want.get(id);
      if (peer) shards.add(shardOf(peer.address));
    }
    let failed = false;
    for (const shard of shards) {
      if (this.routed.has(shard)) continue;
      try {
        await this.o.routeShard(shard);
        this.routed.add(shard);
      } catch (e) {
        failed = true;
        this.o.health.failed('ferry', ROUTES, `reply route for shard ${shard}: ${reasonOf(e)}`);
      }
    }
    if (!failed) this.o.health.recovered('ferry', ROUTES);
  }

  /** Sends every pending change in one update: removals always, upserts whose route exists. */
  private flush(): void {
    if (this.stopped) return;
    const upsert: ServerPeer[] = [];
    const remove: string[] = [];
    for (const id of this.pending) {
      const peer = this.want.get(id);
      if (!peer) remove.push(id);
      else if (this.routed.has(shardOf(peer.address))) upsert.push(peer);
    }
    if (upsert.length === 0 && remove.length === 0) {
      if (this.pending.size) this.scheduleRetry();
      return;
    }
    let rejected: PeerRejection[];
    try {
      rejected = this.tunnel.updatePeers({ upsert, remove }).rejected;
    } catch (e) {
      this.o.health.failed('ferry', UPDATES, reasonOf(e), {
        upserts: upsert.length,
        removes: remove.length,
      });
      // The contract says removals apply even then; a revocation is confirmed, not assumed.
      if (remove.length > 0 && !this.confirmRemovals(remove)) return;
      if (this.pending.size) this.scheduleRetry();
      else this.o.health.recovered('ferry', UPDATES);
      return;
    }
    for (const id of remove) this.pending.delete(id);
    const refused = new Map(rejected.map((r) => [r.id, r.reason]));
    for (const peer of upsert) {
      const reason = refused.get(peer.id);
      if (reason === undefined) {
        this.pending.delete(peer.id);
        this.refusedWhy.delete(peer.id);
      } else if (this.refusedWhy.get(peer.id) !== reason) {
        // The data plane holds no entry for it now (fail closed); it is retried with the others.
        this.refusedWhy.set(peer.id, reason);
        this.o.health.refused('ferry', peer.id, reason);
      }
    }
    this.o.health.recovered('ferry', UPDATES);
    if (this.pending.size) this.scheduleRetry();
    else this.backoffMs = this.o.retryMinMs ?? 1_000;
  }

  /** Sends the removals alone; if even that fails, nothing can be trusted and Ferry stops. */
  private confirmRemovals(remove: string[]): boolean {
    try {
      this.tunnel.updatePeers({ remove });
    } catch (e) {
      this.stop(`revoked peers could not be removed: ${reasonOf(e)}`);
      return false;
    }
    for (const id of remove) this.pending.delete(id);
    return true;
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.close();
    // Every Ferry session ends with the interface: no revoked device keeps access.
    this.tunnel.close();
    this.o.health.stopped('ferry', DATA_PLANE, reason);
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.stopped) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.o.retryMaxMs ?? 60_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.routePending().then(() => this.flush());
    }, delay);
    this.retryTimer.unref();
  }
}
