// Migration 8: each node's latest check of each streaming platform (node facts: a verdict, the
// catalogue's country and when the node checked; nothing about devices or users), and the
// operators' requests that a node check its platforms now.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.js';

export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const big = dialect === 'postgres' ? sql`bigint` : sql`integer`;
    await sql`create table node_platforms (
      node_id text not null references nodes(id) on delete cascade,
      platform text not null,
      verdict text not null,
      reachable integer not null,
      catalog_region text,
      checked_ms ${big} not null,
      primary key (node_id, platform)
    )`.execute(db);
    await sql`create table platform_check_requests (
      node_id text primary key references nodes(id) on delete cascade
    )`.execute(db);
  };
}
