// The peer feed's port: a versioned log of device changes that relays read after their version,
// and the quota period the feed last rolled over to.

/** Written inside the transaction that changed the devices. */
export interface FeedLog {
  /**
   * Appends changes and returns the new version. Versions commit in order, so a relay that has
   * seen version N can never later miss a change numbered below N.
   */
  append(deviceIds: readonly string[]): Promise<number>;
}

export interface FeedStore {
  /** Changes at or below `floor` were pruned; `current` is the newest version. */
  bounds(): Promise<{ floor: number; current: number }>;
  /** The changed device ids after `after`, at most `limit` rows, with the last version read. */
  changesAfter(after: number, limit: number): Promise<{ deviceIds: string[]; version: number }>;
  /** Drops all but the newest `keep` changes; relays behind the new floor resync from a snapshot. */
  prune(keep: number): Promise<void>;
  /**
   * Moves the feed to `period`; returns the period it was in when this call moved it (null the
   * first time), undefined when it was there already (another instance moved it first).
   */
  swapPeriod(period: string): Promise<string | null | undefined>;
}
