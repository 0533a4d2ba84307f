// Migration 10: whether a region offers its relays as entries of a multihop path (a domestic
// first hop where the network lets only its prefixes through). 0 or 1 (both dialects); 0 until
// an operator says so (POST or PATCH /admin/regions).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table regions add column entry integer not null default 0`.execute(db);
}
