// Monthly data caps: an account that reaches its plan's cap loses its peers on every node and
// cannot connect until the next month, when its peers come back. Counters per account and
// month only (the no-logs rule).
import type { AccountsRepo } from '../store/accounts-repo.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import type { FeedRepo } from '../store/feed-repo.js';
import type { Db } from '../store/schema.js';
import { periodOf, type Clock } from './clock.js';
import type { PeerFeed } from './peer-feed.js';
import { PLANS, isOverCap, type PlanRule } from './plans.js';

export class Quota {
  /** The period this instance last saw the feed in; a heartbeat checks the database only when it changes. */
  private knownPeriod: string | undefined;

  constructor(
    private readonly db: Db,
    private readonly accounts: AccountsRepo,
    private readonly devices: DevicesRepo,
    private readonly feedState: FeedRepo,
    private readonly feed: PeerFeed,
    private readonly clock: Clock,
  ) {}

  period(): string {
    return periodOf(this.clock.nowMs());
  }

  async overCap(accountId: number, plan: PlanRule): Promise<boolean> {
    if (plan.dataCapBytes === null) return false;
    return isOverCap(plan, await this.accounts.usage(accountId, this.period()));
  }

  /** Adds bytes to this month's counter; crossing the cap takes the account's peers off the nodes. */
  async record(accountId: number, plan: PlanRule, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    const total = await this.accounts.addUsage(accountId, this.period(), bytes);
    if (isOverCap(plan, total) && !isOverCap(plan, total - bytes))
      await this.republish([accountId]);
  }

  /** In a new month the accounts that were capped in the last one get their peers back. */
  async rollOver(): Promise<void> {
    const period = this.period();
    if (period === this.knownPeriod) return;
    const previous = await this.feedState.swapPeriod(period);
    this.knownPeriod = period;
    if (previous === undefined || previous === null) return;
    for (const plan of PLANS) {
      if (plan.dataCapBytes === null) continue;
      await this.republish(await this.accounts.atOrOverCap(previous, plan.id, plan.dataCapBytes));
    }
  }

  /** Relays re-read these accounts' devices and tunnels (and find them allowed or not). */
  private async republish(accountIds: readonly number[]): Promise<void> {
    if (accountIds.length === 0) return;
    const version = await this.db.transaction().execute(async (trx) => {
      const ids: string[] = [];
      for (const account of accountIds) {
        ids.push(...(await this.devices.peerIdsForAccount(account, trx)));
      }
      return ids.length ? this.feed.record(trx, ids) : 0;
    });
    await this.feed.announce(version);
  }
}
