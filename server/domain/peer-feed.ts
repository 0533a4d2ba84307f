// The peer feed that relays long-poll: records device changes, answers deltas or snapshots.
import type { Peer, PeersResponse } from '../../contracts/index.js';
import type { EventBus } from './event-bus.js';
import { isOverCap, planAllowsRegion, planOf } from './plans.js';
import type { DevicesStore, FeedPeerRow } from './ports/devices.js';
import type { FeedStore } from './ports/feed.js';
import type { InTransaction } from './ports/stores.js';

/** How many changes one delta answer carries at most; the relay asks again for the rest. */
const DELTA_LIMIT = 10_000;
/** Changes kept for deltas; a relay further behind gets a snapshot. */
const RETAINED_CHANGES = 100_000;
const PRUNE_EVERY = 1_000;

export class PeerFeed {
  constructor(
    private readonly feed: FeedStore,
    private readonly devices: Pick<DevicesStore, 'feedRows' | 'allFeedRows'>,
    private readonly bus: EventBus,
    /** The quota period now (YYYY-MM): devices of accounts over their cap are not on nodes. */
    private readonly period: () => string,
  ) {}

  /** Call inside the transaction that changed the devices; then `announce` after commit. */
  record(tx: Pick<InTransaction, 'feed'>, deviceIds: readonly string[]): Promise<number> {
    return tx.feed.append(deviceIds);
  }

  async announce(version: number): Promise<void> {
    if (version <= 0) return;
    await this.bus.publish({ kind: 'feed', version });
    if (version % PRUNE_EVERY === 0) await this.feed.prune(RETAINED_CHANGES);
  }

  async currentVersion(): Promise<number> {
    return (await this.feed.bounds()).current;
  }

  /**
   * The peers of `regionId` changed after version `after`; waits up to `waitSeconds` for a
   * change when there is none yet. `after` 0, a version pruned away or one from a reset
   * database all get a full snapshot.
   */
  async read(
    regionId: string,
    after: number,
    waitSeconds: number,
    signal: AbortSignal,
  ): Promise<PeersResponse> {
    let bounds = await this.feed.bounds();
    if (after > bounds.current || (after > 0 && after < bounds.floor)) {
      return this.snapshot(regionId, bounds.current);
    }
    if (after === bounds.current && waitSeconds > 0) {
      await this.waitForChange(after, waitSeconds, signal);
      bounds = await this.feed.bounds();
    }
    if (after === 0) return this.snapshot(regionId, bounds.current);
    if (after >= bounds.current) return { version: after, snapshot: false, peers: [] };

    const { deviceIds, version } = await this.feed.changesAfter(after, DELTA_LIMIT);
    const rows = new Map(
      (await this.devices.feedRows(deviceIds, this.period())).map((r) => [r.id, r]),
    );
    const peers = deviceIds.map((id): Peer => {
      const row = rows.get(id);
      return row && allowedOn(row, regionId) ? upsert(row) : { device_id: id, op: 'remove' };
    });
    return { version, snapshot: false, peers };
  }

  private async snapshot(regionId: string, version: number): Promise<PeersResponse> {
    const rows = await this.devices.allFeedRows(this.period());
    return {
      version,
      snapshot: true,
      peers: rows.filter((r) => allowedOn(r, regionId)).map(upsert),
    };
  }

  private waitForChange(after: number, waitSeconds: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitSeconds * 1000);
      const unsubscribe = this.bus.subscribe((e) => {
        if (e.kind === 'feed' && e.version > after) done();
      });
      signal.addEventListener('abort', done);
      // A change committed between the caller's read and the subscription is caught here.
      this.feed.bounds().then((b) => b.current > after && done(), done);
    });
  }
}

/** A peer (a device or its tunnel) is on a node when its plan allows the node's region and its data cap is not reached. */
function allowedOn(row: FeedPeerRow, regionId: string): boolean {
  const plan = planOf(row.plan);
  return planAllowsRegion(plan, regionId) && !isOverCap(plan, Number(row.usage_bytes));
}

function upsert(row: FeedPeerRow): Peer {
  const plan = planOf(row.plan);
  return {
    device_id: row.id,
    op: 'upsert',
    wireguard_public_key: row.wireguard_public_key,
    ferry_public_key: row.ferry_public_key,
    tunnel_ipv4: row.tunnel_ipv4,
    tunnel_ipv6: row.tunnel_ipv6,
    bandwidth_limit_mbps: plan.bandwidthLimitMbps,
    data_cap_bytes: plan.dataCapBytes,
  };
}
