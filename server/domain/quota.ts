// Monthly data caps: an account that reaches its plan's cap loses its peers on every node and
// cannot connect until the next month, when its peers come back. Counters per account and
// month only (the no-logs rule).
import { periodOf, type Clock } from './clock.js';
import type { PeerFeed } from './peer-feed.js';
import { PLANS, isOverCap, planOf, type PlanRule } from './plans.js';
import type { AccountsStore } from './ports/accounts.js';
import type { DevicesStore } from './ports/devices.js';
import type { FeedStore } from './ports/feed.js';
import type { Transactions } from './ports/stores.js';

export interface QuotaDeps {
  transactions: Transactions;
  accounts: AccountsStore;
  devices: Pick<DevicesStore, 'feedRows'>;
  /** The period the feed last rolled over to. */
  feedState: Pick<FeedStore, 'swapPeriod'>;
  feed: PeerFeed;
  clock: Clock;
}

export class Quota {
  /** The period this instance last saw the feed in; a heartbeat checks the database only when it changes. */
  private knownPeriod: string | undefined;

  constructor(private readonly d: QuotaDeps) {}

  period(): string {
    return periodOf(this.d.clock.nowMs());
  }

  async overCap(accountId: number, plan: PlanRule): Promise<boolean> {
    if (plan.dataCapBytes === null) return false;
    return isOverCap(plan, await this.d.accounts.usage(accountId, this.period()));
  }

  /** Adds bytes to this month's counter; crossing the cap takes the account's peers off the nodes. */
  async record(accountId: number, plan: PlanRule, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    const total = await this.d.accounts.addUsage(accountId, this.period(), bytes);
    if (isOverCap(plan, total) && !isOverCap(plan, total - bytes))
      await this.republish([accountId]);
  }

  /** A node's usage report: bytes per device, added to each account's counter for this period. */
  async recordDeviceUsage(usage: readonly { device_id: string; bytes: number }[]): Promise<void> {
    const rows = await this.d.devices.feedRows(
      usage.map((u) => u.device_id),
      this.period(),
    );
    const accountOf = new Map(rows.map((r) => [r.id, r]));
    // Per-device detail is not kept: only the accounts' sums reach the counters.
    const perAccount = new Map<number, { plan: string; bytes: number }>();
    for (const u of usage) {
      const row = accountOf.get(u.device_id);
      if (!row) continue;
      const sum = perAccount.get(row.account_id) ?? { plan: row.plan, bytes: 0 };
      sum.bytes += u.bytes;
      perAccount.set(row.account_id, sum);
    }
    for (const [account, { plan, bytes }] of perAccount)
      await this.record(account, planOf(plan), bytes);
  }

  /** In a new month the accounts that were capped in the last one get their peers back. */
  async rollOver(): Promise<void> {
    const period = this.period();
    if (period === this.knownPeriod) return;
    const previous = await this.d.feedState.swapPeriod(period);
    this.knownPeriod = period;
    if (previous === undefined || previous === null) return;
    for (const plan of PLANS) {
      if (plan.dataCapBytes === null) continue;
      await this.republish(await this.d.accounts.atOrOverCap(previous, plan.id, plan.dataCapBytes));
    }
  }

  /** Relays re-read these accounts' devices and tunnels (and find them allowed or not). */
  private async republish(accountIds: readonly number[]): Promise<void> {
    if (accountIds.length === 0) return;
    const version = await this.d.transactions.transaction(async (tx) => {
      const ids: string[] = [];
      for (const account of accountIds) {
        ids.push(...(await tx.devices.peerIdsForAccount(account)));
      }
      return ids.length ? this.d.feed.record(tx, ids) : 0;
    });
    await this.d.feed.announce(version);
  }
}
