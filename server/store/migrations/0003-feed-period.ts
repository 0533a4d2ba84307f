// Migration 3: the quota period the peer feed last rolled over to (data caps reset monthly).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table feed_state add column period text`.execute(db);
}
