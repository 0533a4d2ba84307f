// Accounts and their per-period usage counters.
import { sql } from 'kysely';
import type { Db, Dialect } from './schema.js';

export interface AccountRow {
  id: number;
  number: string;
  password_hash: string | null;
  plan: string;
}

/** Bound to the database, or to one transaction (SqlStores.transaction). */
export class AccountsRepo {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Returns undefined when the number is taken (the caller draws another). */
  async insert(
    number: string,
    passwordHash: string | null,
    plan: string,
  ): Promise<number | undefined> {
    const row = await this.db
      .insertInto('accounts')
      .values({ number, password_hash: passwordHash, plan })
      .onConflict((oc) => oc.column('number').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }

  byNumber(number: string): Promise<AccountRow | undefined> {
    return this.db
      .selectFrom('accounts')
      .selectAll()
      .where('number', '=', number)
      .executeTakeFirst();
  }

  byId(id: number): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async setPlan(id: number, plan: string): Promise<void> {
    await this.db.updateTable('accounts').set({ plan }).where('id', '=', id).execute();
  }

  /**
   * Serialises, until the transaction ends, additions of devices to the account (PostgreSQL: two
   * cannot both take its last slot). SQLite has one writer at a time.
   */
  async lock(accountId: number): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.db
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', accountId)
      .forUpdate()
      .execute();
  }

  async usage(accountId: number, period: string): Promise<number> {
    const row = await this.db
      .selectFrom('usage')
      .select('bytes')
      .where('account_id', '=', accountId)
      .where('period', '=', period)
      .executeTakeFirst();
    return row?.bytes ?? 0;
  }

  /** Adds to the account's counter and returns the new total. */
  async addUsage(accountId: number, period: string, bytes: number): Promise<number> {
    const row = await this.db
      .insertInto('usage')
      .values({ account_id: accountId, period, bytes })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'period'])
          .doUpdateSet({ bytes: sql`usage.bytes + excluded.bytes` }),
      )
      .returning('bytes')
      .executeTakeFirstOrThrow();
    return Number(row.bytes);
  }

  /** Accounts on `plan` whose usage in `period` reached `capBytes`. */
  async atOrOverCap(period: string, plan: string, capBytes: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('usage')
      .innerJoin('accounts', 'accounts.id', 'usage.account_id')
      .select('usage.account_id')
      .where('usage.period', '=', period)
      .where('accounts.plan', '=', plan)
      .where('usage.bytes', '>=', capBytes)
      .execute();
    return rows.map((r) => Number(r.account_id));
  }
}
