// Device tunnels (service tunnels): their keys and addresses, and the address sequence they share
// with devices, so that no tunnel address is ever a device's or another tunnel's.
import { sql, type Selectable } from 'kysely';
import type { Db, DeviceTunnelsTable, Dialect } from './schema.js';

export type TunnelRow = Selectable<DeviceTunnelsTable>;

const COLUMNS = [
  'device_tunnels.id',
  'device_tunnels.device_id',
  'device_tunnels.tag',
  'device_tunnels.wireguard_public_key',
  'device_tunnels.ferry_public_key',
  'device_tunnels.tunnel_ipv4',
  'device_tunnels.tunnel_ipv6',
] as const;

/** Bound to the database, or to one transaction (SqlStores.transaction). */
export class TunnelsRepo {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The next number of the devices' address sequence, taken for a tunnel: a device signed in
   * later gets a higher one, so tunnelAddresses() of it is nobody else's, ever (numbers are
   * never reused). Inside the caller's transaction.
   */
  async nextAddressSeq(): Promise<number> {
    if (this.dialect === 'postgres') {
      const r = await sql<{
        seq: number;
      }>`select nextval(pg_get_serial_sequence('devices', 'seq')) as seq`.execute(this.db);
      return Number(r.rows[0]!.seq);
    }
    // AUTOINCREMENT numbers a new row above the larger of this counter and the highest seq.
    const r = await sql<{
      seq: number;
    }>`update sqlite_sequence set seq = seq + 1 where name = 'devices' returning seq`.execute(
      this.db,
    );
    if (r.rows[0] === undefined) {
      // No device was ever stored: then there is no device to hold a tunnel either.
      throw new Error('the devices table has no address sequence yet');
    }
    return Number(r.rows[0].seq);
  }

  /**
   * Serialises, until the transaction ends, the writers of one device's tunnels (PostgreSQL:
   * two registrations cannot both take the last place). SQLite has one writer at a time.
   */
  async lockDevice(deviceId: string): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.db
      .selectFrom('devices')
      .select('id')
      .where('id', '=', deviceId)
      .forUpdate()
      .execute();
  }

  async insert(row: TunnelRow): Promise<void> {
    await this.db.insertInto('device_tunnels').values(row).execute();
  }

  listForDevice(deviceId: string): Promise<TunnelRow[]> {
    return this.db
      .selectFrom('device_tunnels')
      .select(COLUMNS)
      .where('device_id', '=', deviceId)
      .orderBy('tag')
      .execute();
  }

  get(deviceId: string, tag: string): Promise<TunnelRow | undefined> {
    return this.db
      .selectFrom('device_tunnels')
      .select(COLUMNS)
      .where('device_id', '=', deviceId)
      .where('tag', '=', tag)
      .executeTakeFirst();
  }

  /** Removes one tunnel; returns its id, or undefined when there was none. */
  async delete(deviceId: string, tag: string): Promise<string | undefined> {
    const row = await this.get(deviceId, tag);
    if (!row) return undefined;
    await this.db.deleteFrom('device_tunnels').where('id', '=', row.id).execute();
    return row.id;
  }

  /** Removes every tunnel of a device (it is being revoked); returns their ids. */
  async deleteForDevice(deviceId: string): Promise<string[]> {
    const ids = (await this.listForDevice(deviceId)).map((r) => r.id);
    if (ids.length)
      await this.db.deleteFrom('device_tunnels').where('device_id', '=', deviceId).execute();
    return ids;
  }
}
