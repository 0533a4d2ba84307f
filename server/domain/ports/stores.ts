// The store as the domain sees it: one port per repository, and transactions over them.
import type { AccountsStore } from './accounts.js';
import type { DevicesStore } from './devices.js';
import type { FeedLog, FeedStore } from './feed.js';
import type { KeyHoldersStore } from './key-holders.js';
import type { NodePlatformsStore } from './node-platforms.js';
import type { RegionsStore } from './regions.js';
import type { TunnelsStore } from './tunnels.js';

/** The repositories bound to one transaction: what they write commits together or not at all. */
export interface InTransaction {
  accounts: AccountsStore;
  devices: DevicesStore;
  tunnels: TunnelsStore;
  keys: KeyHoldersStore;
  regions: RegionsStore;
  feed: FeedLog;
}

export interface Transactions {
  /**
   * Runs `work` in one transaction: committed when it resolves (a failure it returns as a value
   * included), rolled back when it throws. Not to be nested.
   */
  transaction<T>(work: (tx: InTransaction) => Promise<T>): Promise<T>;
}

/** Every repository outside a transaction, and transactions. */
export interface Stores extends Transactions {
  accounts: AccountsStore;
  devices: DevicesStore;
  tunnels: TunnelsStore;
  regions: RegionsStore;
  feed: FeedStore;
  nodePlatforms: NodePlatformsStore;
}
