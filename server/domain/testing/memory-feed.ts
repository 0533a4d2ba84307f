// The peer feed's log in memory (test code): the domain's FeedStore and FeedLog without SQL.
import type { FeedLog, FeedStore } from '../ports/feed.js';
import type { TablesHolder } from './memory-tables.js';

export class MemoryFeed implements FeedStore, FeedLog {
  constructor(private readonly h: TablesHolder) {}

  async append(deviceIds: readonly string[]): Promise<number> {
    let version = 0;
    for (const device_id of deviceIds) {
      version = ++this.h.t.lastVersion;
      this.h.t.changes.push({ version, device_id });
    }
    return version;
  }

  async bounds(): Promise<{ floor: number; current: number }> {
    const { feedFloor, changes } = this.h.t;
    const max = changes.length ? changes[changes.length - 1]!.version : 0;
    return { floor: feedFloor, current: Math.max(feedFloor, max) };
  }

  async changesAfter(
    after: number,
    limit: number,
  ): Promise<{ deviceIds: string[]; version: number }> {
    const rows = this.h.t.changes.filter((c) => c.version > after).slice(0, limit);
    return {
      deviceIds: [...new Set(rows.map((r) => r.device_id))],
      version: rows.length ? rows[rows.length - 1]!.version : after,
    };
  }

  async prune(keep: number): Promise<void> {
    const { current } = await this.bounds();
    const floor = current - keep;
    if (floor <= 0) return;
    this.h.t.changes = this.h.t.changes.filter((c) => c.version > floor);
    this.h.t.feedFloor = Math.max(this.h.t.feedFloor, floor);
  }

  async swapPeriod(period: string): Promise<string | null | undefined> {
    const before = this.h.t.feedPeriod;
    if (before === period) return undefined;
    this.h.t.feedPeriod = period;
    return before;
  }
}
