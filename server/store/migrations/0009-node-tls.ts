// Migration 9: each node's TLS transport as its relay registers it: the TCP port and the server
// name (the cover site's) that clients put in their hello. Null until the relay registers one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nodes add column tls_port integer`.execute(db);
  await sql`alter table nodes add column tls_server_name text`.execute(db);
}
