// Migration 7: device tunnels (service tunnels): extra peers of a device, each with its own keys
// and stable tunnel addresses, that go with their device.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table device_tunnels (
    id text primary key,
    device_id text not null references devices(id) on delete cascade,
    tag text not null,
    wireguard_public_key text not null unique,
    ferry_public_key text not null unique,
    tunnel_ipv4 text not null unique,
    tunnel_ipv6 text not null unique,
    unique (device_id, tag)
  )`.execute(db);
}
