// Migration 1: accounts, devices, regions, nodes, the peer feed and quota counters.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.js';

export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const serial = (name: string) =>
      dialect === 'postgres'
        ? sql`${sql.ref(name)} bigserial primary key`
        : sql`${sql.ref(name)} integer primary key autoincrement`;
    const big = dialect === 'postgres' ? sql`bigint` : sql`integer`;
    const real = dialect === 'postgres' ? sql`double precision` : sql`real`;

    await sql`create table accounts (
      ${serial('id')},
      number text not null unique,
      password_hash text,
      plan text not null
    )`.execute(db);
    await sql`create table devices (
      ${serial('seq')},
      id text not null unique,
      account_id ${big} not null references accounts(id) on delete cascade,
      name text not null,
      kind text not null,
      wireguard_public_key text not null unique,
      ferry_public_key text not null unique,
      tunnel_ipv4 text not null unique,
      tunnel_ipv6 text not null unique,
      token_hash text not null unique
    )`.execute(db);
    await sql`create index devices_account on devices(account_id)`.execute(db);
    await sql`create table regions (
      id text primary key,
      name text not null,
      area text not null,
      country text
    )`.execute(db);
    await sql`create table nodes (
      id text primary key,
      region_id text not null references regions(id),
      endpoint_host text not null,
      wireguard_port integer not null,
      ferry_port integer,
      capacity_mbps integer not null,
      token_hash text not null unique,
      wireguard_public_key text,
      ferry_public_key text,
      load ${real} not null default 0,
      rx_bps ${big} not null default 0,
      tx_bps ${big} not null default 0,
      last_heartbeat_ms ${big}
    )`.execute(db);
    await sql`create table peer_changes (
      ${serial('version')},
      device_id text not null
    )`.execute(db);
    await sql`create table feed_state (id integer primary key, floor ${big} not null)`.execute(db);
    await sql`insert into feed_state (id, floor) values (1, 0)`.execute(db);
    await sql`create table usage (
      account_id ${big} not null references accounts(id) on delete cascade,
      period text not null,
      bytes ${big} not null default 0,
      primary key (account_id, period)
    )`.execute(db);
  };
}
