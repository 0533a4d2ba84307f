// Migration 4: the data planes a node reports as degraded (its peer updates failing), so that
// every control-plane instance stops giving it new sessions of those protocols.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nodes add column degraded text`.execute(db);
}
