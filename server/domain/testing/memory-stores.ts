// The domain's store in memory (test code): every repository port over plain tables, and
// transactions that run one at a time and roll back when their work throws, as SQLite's do.
import type { InTransaction, Stores } from '../ports/stores.js';
import type { RegionRow } from '../ports/regions.js';
import { MemoryAccounts } from './memory-accounts.js';
import { MemoryDevices, MemoryKeyHolders } from './memory-devices.js';
import { MemoryFeed } from './memory-feed.js';
import { MemoryNodePlatforms, MemoryRegions } from './memory-regions.js';
import { emptyTables, type MemoryTables, type TablesHolder } from './memory-tables.js';
import { MemoryTunnels } from './memory-tunnels.js';

export class MemoryStores implements Stores {
  readonly accounts: MemoryAccounts;
  readonly devices: MemoryDevices;
  readonly tunnels: MemoryTunnels;
  readonly regions: MemoryRegions;
  readonly feed: MemoryFeed;
  readonly nodePlatforms: MemoryNodePlatforms;
  /** Transactions begun so far, committed or not (a test may count what a call opened). */
  transactions = 0;
  private readonly holder: TablesHolder = { t: emptyTables() };
  private readonly keys = new MemoryKeyHolders(this.holder);
  /** The end of the last transaction: the next waits for it (one writer at a time). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(seed: { regions?: readonly RegionRow[] } = {}) {
    this.accounts = new MemoryAccounts(this.holder);
    this.devices = new MemoryDevices(this.holder);
    this.tunnels = new MemoryTunnels(this.holder);
    this.regions = new MemoryRegions(this.holder);
    this.feed = new MemoryFeed(this.holder);
    this.nodePlatforms = new MemoryNodePlatforms(this.holder);
    this.holder.t.regions = (seed.regions ?? []).map((r) => ({ ...r }));
  }

  /** The tables as they are (for assertions on what was stored, e.g. nothing per device). */
  get tables(): Readonly<MemoryTables> {
    return this.holder.t;
  }

  transaction<T>(work: (tx: InTransaction) => Promise<T>): Promise<T> {
    this.transactions++;
    const run = async () => {
      const before = structuredClone(this.holder.t);
      try {
        return await work({
          accounts: this.accounts,
          devices: this.devices,
          tunnels: this.tunnels,
          keys: this.keys,
          regions: this.regions,
          feed: this.feed,
        });
      } catch (e) {
        this.holder.t = before;
        throw e;
      }
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
