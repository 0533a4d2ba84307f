// The versioned peer feed: one row per device change; relays read what came after their version.
import { sql } from 'kysely';
import type { Db, Dialect } from './schema.js';

/**
 * Bound to the database, or to one transaction (SqlStores.transaction): `append` belongs in the
 * caller's transaction, `prune` and `swapPeriod` run transactions of their own.
 */
export class FeedRepo {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Appends changes inside the caller's transaction and returns the new version. On
   * PostgreSQL the table lock makes versions commit in order, so a relay that has seen
   * version N can never later miss a change numbered below N.
   */
  async append(deviceIds: readonly string[]): Promise<number> {
    if (this.dialect === 'postgres')
      await sql`lock table peer_changes in exclusive mode`.execute(this.db);
    let version = 0;
    for (const device_id of deviceIds) {
      const row = await this.db
        .insertInto('peer_changes')
        .values({ device_id })
        .returning('version')
        .executeTakeFirstOrThrow();
      version = row.version;
    }
    return version;
  }

  async bounds(): Promise<{ floor: number; current: number }> {
    const state = await this.db
      .selectFrom('feed_state')
      .select('floor')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    const max = await this.db
      .selectFrom('peer_changes')
      .select((eb) => eb.fn.max<number | null>('version').as('v'))
      .executeTakeFirstOrThrow();
    const floor = Number(state.floor);
    return { floor, current: Math.max(floor, Number(max.v ?? 0)) };
  }

  /** The changed device ids after `after`, at most `limit` rows, with the last version read. */
  async changesAfter(
    after: number,
    limit: number,
  ): Promise<{ deviceIds: string[]; version: number }> {
    const rows = await this.db
      .selectFrom('peer_changes')
      .select(['version', 'device_id'])
      .where('version', '>', after)
      .orderBy('version')
      .limit(limit)
      .execute();
    return {
      deviceIds: [...new Set(rows.map((r) => r.device_id))],
      version: rows.length ? Number(rows[rows.length - 1]!.version) : after,
    };
  }

  /** Drops all but the newest `keep` changes; relays behind the new floor resync from a snapshot. */
  async prune(keep: number): Promise<void> {
    const { current } = await this.bounds();
    const floor = current - keep;
    if (floor <= 0) return;
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('peer_changes').where('version', '<=', floor).execute();
      await trx
        .updateTable('feed_state')
        .set({ floor })
        .where('id', '=', 1)
        .where('floor', '<', floor)
        .execute();
    });
  }

  /**
   * Moves the feed to `period`; returns the period it was in when this call moved it (null the
   * first time), undefined when it was there already (another instance moved it first).
   */
  async swapPeriod(period: string): Promise<string | null | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const state = await trx
        .selectFrom('feed_state')
        .select('period')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      if (state.period === period) return undefined;
      const moved = await trx
        .updateTable('feed_state')
        .set({ period })
        .where('id', '=', 1)
        .where((eb) =>
          state.period === null ? eb('period', 'is', null) : eb('period', '=', state.period),
        )
        .executeTakeFirst();
      return Number(moved.numUpdatedRows) === 1 ? state.period : undefined;
    });
  }
}
