// The accounts port: what the domain asks of stored accounts and their monthly usage counters.

export interface AccountRow {
  id: number;
  number: string;
  password_hash: string | null;
  plan: string;
}

export interface AccountsStore {
  /** Returns undefined when the number is taken (the caller draws another). */
  insert(number: string, passwordHash: string | null, plan: string): Promise<number | undefined>;
  byNumber(number: string): Promise<AccountRow | undefined>;
  setPlan(id: number, plan: string): Promise<void>;
  /**
   * Serialises, until the transaction ends, the additions of devices to one account, so that two
   * cannot both take the last slot (a store with one writer at a time has nothing to do).
   */
  lock(accountId: number): Promise<void>;
  usage(accountId: number, period: string): Promise<number>;
  /** Adds to the account's counter and returns the new total. */
  addUsage(accountId: number, period: string, bytes: number): Promise<number>;
  /** Accounts on `plan` whose usage in `period` reached `capBytes`. */
  atOrOverCap(period: string, plan: string, capBytes: number): Promise<number[]>;
}
