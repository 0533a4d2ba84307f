// Migration 6: each node's latency probe responder: the port its relay reports, and the key
// that authorises probes (32 random bytes, base64), made here for the nodes that exist.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nodes add column probe_port integer`.execute(db);
  await sql`alter table nodes add column probe_key text`.execute(db);
  const nodes = await sql<{ id: string }>`select id from nodes`.execute(db);
  for (const { id } of nodes.rows) {
    const key = randomBytes(32).toString('base64');
    await sql`update nodes set probe_key = ${key} where id = ${id}`.execute(db);
  }
}
