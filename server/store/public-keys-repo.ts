// Who holds a public key: devices, their tunnels and nodes, both key kinds. A key must belong to one holder
// and one kind, or relays cannot tell whose packets are whose.
import { sql } from 'kysely';
import type { Db, Dialect } from './schema.js';

export type KeyField = 'wireguard_public_key' | 'ferry_public_key';

export interface KeyHolder {
  kind: 'device' | 'tunnel' | 'node';
  id: string;
  field: KeyField;
  key: string;
}

/** Used inside the transaction that stores the keys: bound to it (SqlStores.transaction). */
export class PublicKeysRepo {
  constructor(
    private readonly trx: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Serialises, until the transaction ends, the writers of these keys: two sign-ins or node
   * registrations with the same key cannot both find it free. PostgreSQL only; SQLite has one
   * writer at a time.
   */
  async lock(keys: readonly string[]): Promise<void> {
    if (this.dialect !== 'postgres') return;
    // In one order, so that two writers of overlapping keys cannot deadlock.
    for (const key of [...new Set(keys)].sort()) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 25519))`.execute(this.trx);
    }
  }

  async holders(keys: readonly string[]): Promise<KeyHolder[]> {
    if (keys.length === 0) return [];
    const wanted = [...new Set(keys)];
    const [devices, tunnels, nodes] = await Promise.all([
      this.trx
        .selectFrom('devices')
        .select(['id', 'wireguard_public_key', 'ferry_public_key'])
        .where((eb) =>
          eb.or([eb('wireguard_public_key', 'in', wanted), eb('ferry_public_key', 'in', wanted)]),
        )
        .execute(),
      this.trx
        .selectFrom('device_tunnels')
        .select(['id', 'wireguard_public_key', 'ferry_public_key'])
        .where((eb) =>
          eb.or([eb('wireguard_public_key', 'in', wanted), eb('ferry_public_key', 'in', wanted)]),
        )
        .execute(),
      this.trx
        .selectFrom('nodes')
        .select(['id', 'wireguard_public_key', 'ferry_public_key'])
        .where((eb) =>
          eb.or([eb('wireguard_public_key', 'in', wanted), eb('ferry_public_key', 'in', wanted)]),
        )
        .execute(),
    ]);
    const out: KeyHolder[] = [];
    const collect = (
      kind: KeyHolder['kind'],
      rows: { id: string; wireguard_public_key: string | null; ferry_public_key: string | null }[],
    ) => {
      for (const row of rows) {
        for (const field of ['wireguard_public_key', 'ferry_public_key'] as const) {
          const key = row[field];
          if (key !== null && wanted.includes(key)) out.push({ kind, id: row.id, field, key });
        }
      }
    };
    collect('device', devices);
    collect('tunnel', tunnels);
    collect('node', nodes);
    return out;
  }
}
