// Stream mode's ground truth: each node's own latest check of each streaming platform, as its
// heartbeats report it, kept per node and platform (node facts only), and what counts as
// verified: a served answer (no proxy or "not offered" verdict) checked recently enough.
import {
  findPlatform,
  type NodePlatform,
  type PlatformCheckReport,
  type PlatformCheckVerdict,
  type PlatformTable,
} from '../../contracts/index.js';
import type { Clock } from './clock.js';
import type { NodePlatformRow, NodePlatformsStore } from './ports/node-platforms.js';

/** Relays check every 600 s by default: a result counts through one missed check. */
export const DEFAULT_PLATFORM_FRESH_SECONDS = 1200;
/** Results of a platform a node no longer reports stay this long (GET /nodes shows their age). */
const KEEP_MS = 24 * 3600_000;

export interface PlatformChecksOptions {
  /** A node's result counts as verified for this long after the node checked. */
  freshMs: number;
}

export class PlatformChecks {
  /**
   * What this instance last wrote per node and platform, so that a heartbeat that repeats the
   * same results (most of them) writes nothing. Another instance may write the same row again:
   * an upsert of the same values, harmless.
   */
  private readonly written = new Map<string, Map<string, string>>();

  constructor(
    private readonly repo: NodePlatformsStore,
    /** The platforms the service knows by name (the shipped table and --platforms-file). */
    readonly table: PlatformTable,
    private readonly clock: Clock,
    private readonly opts: PlatformChecksOptions,
  ) {}

  get freshMs(): number {
    return this.opts.freshMs;
  }

  listAll(): Promise<NodePlatformRow[]> {
    return this.repo.listAll();
  }

  /** A node's result for a platform counts: served, and checked within the fresh window. */
  isVerified(row: NodePlatformRow, nowMs = this.clock.nowMs()): boolean {
    return row.verdict === 'ok' && nowMs - row.checked_ms < this.opts.freshMs;
  }

  /** A node's results as devices see them. */
  view(rows: readonly NodePlatformRow[], nowMs = this.clock.nowMs()): NodePlatform[] {
    return rows.map((r) => ({
      platform: r.platform,
      verified: this.isVerified(r, nowMs),
      verdict: r.verdict as PlatformCheckVerdict,
      region: r.catalog_region,
      checked_age_seconds: Math.max(0, Math.floor((nowMs - r.checked_ms) / 1000)),
    }));
  }

  /** The platform `name` stands for: an id or alias of the table, or an id a node reported. */
  resolve(name: string, reported: readonly NodePlatformRow[]): string | undefined {
    const known = findPlatform(this.table, name);
    if (known !== undefined) return known;
    const wanted = name.trim().toLowerCase();
    return reported.some((r) => r.platform === wanted) ? wanted : undefined;
  }

  /** Every name `platform` takes: the table's ids and aliases and the ids nodes reported. */
  names(reported: readonly NodePlatformRow[]): string[] {
    const names = new Set<string>();
    for (const [id, def] of Object.entries(this.table)) {
      names.add(id);
      for (const a of def.aliases) names.add(a.toLowerCase());
    }
    for (const r of reported) names.add(r.platform);
    return [...names].sort();
  }

  /** The platform's name for people: the table's, or its id. */
  nameOf(id: string): string {
    return Object.hasOwn(this.table, id) ? this.table[id]!.name : id;
  }

  /**
   * A heartbeat's results: those that changed are written (the time of a check is the node's
   * clock, never later than now). Answers whether anything was written, and whether the node is
   * to check now: an operator asked, or it checks platforms and has no fresh result at all.
   */
  async record(
    nodeId: string,
    reports: readonly PlatformCheckReport[] | undefined,
  ): Promise<{ changed: boolean; checkNow: boolean }> {
    const now = this.clock.nowMs();
    let changed = false;
    if (reports?.length) {
      const before = this.written.get(nodeId) ?? new Map<string, string>();
      const signatures = new Map<string, string>();
      const rows: NodePlatformRow[] = [];
      // One result per platform: a report that repeats one counts its last.
      const latest = [...new Map(reports.map((r) => [r.platform, r])).values()];
      for (const r of latest) {
        const signature = `${r.verdict}|${r.reachable}|${r.region}|${r.checked_at}`;
        signatures.set(r.platform, signature);
        if (before.get(r.platform) === signature) continue;
        rows.push({
          node_id: nodeId,
          platform: r.platform,
          verdict: r.verdict,
          reachable: r.reachable ? 1 : 0,
          catalog_region: r.region,
          checked_ms: Math.min(r.checked_at * 1000, now),
        });
      }
      if (rows.length > 0) {
        await this.repo.upsert(rows);
        await this.repo.prune(nodeId, now - KEEP_MS);
        changed = true;
      }
      this.written.set(nodeId, signatures);
    }
    const asked = await this.repo.takeCheckRequest(nodeId);
    const nothingFresh =
      reports !== undefined &&
      !reports.some((r) => now - Math.min(r.checked_at * 1000, now) < this.opts.freshMs);
    return { changed, checkNow: asked || nothingFresh };
  }

  /** An operator's request: the node checks at once when its next heartbeat hears of it. */
  requestCheck(nodeId: string): Promise<void> {
    return this.repo.requestCheck(nodeId);
  }
}
