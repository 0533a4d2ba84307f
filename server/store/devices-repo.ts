// Devices: their keys, stable tunnel addresses and hashed tokens.
import type { Selectable } from 'kysely';
import type { Db, DevicesTable } from './schema.js';

/** A device as read back: everything but its token hash. */
export type DeviceRow = Omit<Selectable<DevicesTable>, 'token_hash'>;

/** The device a token hash belongs to, with its account. */
export interface TokenHolderRow {
  deviceId: string;
  accountId: number;
  accountNumber: string;
  plan: string;
  tunnelIpv4: string;
  tunnelIpv6: string;
}

/**
 * A peer as the feed needs it: a device, or one of its tunnels (its own id, keys and addresses),
 * with the account's plan.
 */
export type FeedPeerRow = Pick<
  Selectable<DevicesTable>,
  'id' | 'account_id' | 'wireguard_public_key' | 'ferry_public_key' | 'tunnel_ipv4' | 'tunnel_ipv6'
> & {
  plan: string;
  /** The account's bytes in the period asked for. */
  usage_bytes: number;
};

const COLUMNS = [
  'devices.seq',
  'devices.id',
  'devices.account_id',
  'devices.name',
  'devices.kind',
  'devices.wireguard_public_key',
  'devices.ferry_public_key',
  'devices.tunnel_ipv4',
  'devices.tunnel_ipv6',
] as const;

/** Bound to the database, or to one transaction (SqlStores.transaction). */
export class DevicesRepo {
  constructor(private readonly db: Db) {}

  async countForAccount(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Inserts and returns the sequence number that the tunnel addresses derive from. */
  async insert(
    d: Omit<DeviceRow, 'seq' | 'tunnel_ipv4' | 'tunnel_ipv6'> & { token_hash: string },
  ): Promise<number> {
    // Placeholders unique per device until the addresses are known from the sequence.
    const row = await this.db
      .insertInto('devices')
      .values({ ...d, tunnel_ipv4: `pending:${d.id}`, tunnel_ipv6: `pending:${d.id}` })
      .returning('seq')
      .executeTakeFirstOrThrow();
    return row.seq;
  }

  async setAddresses(id: string, ipv4: string, ipv6: string): Promise<void> {
    await this.db
      .updateTable('devices')
      .set({ tunnel_ipv4: ipv4, tunnel_ipv6: ipv6 })
      .where('id', '=', id)
      .execute();
  }

  listForAccount(accountId: number): Promise<DeviceRow[]> {
    return this.db
      .selectFrom('devices')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy('seq')
      .execute();
  }

  /** Another account's device is indistinguishable from a missing one. */
  get(accountId: number, id: string): Promise<DeviceRow | undefined> {
    return this.db
      .selectFrom('devices')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async rename(accountId: number, id: string, name: string): Promise<boolean> {
    const r = await this.db
      .updateTable('devices')
      .set({ name })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('devices')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async setKeys(
    id: string,
    keys: { wireguard_public_key?: string | undefined; ferry_public_key?: string | undefined },
  ): Promise<void> {
    const set: { wireguard_public_key?: string; ferry_public_key?: string } = {};
    if (keys.wireguard_public_key) set.wireguard_public_key = keys.wireguard_public_key;
    if (keys.ferry_public_key) set.ferry_public_key = keys.ferry_public_key;
    await this.db.updateTable('devices').set(set).where('id', '=', id).execute();
  }

  async authByTokenHash(tokenHash: string): Promise<TokenHolderRow | undefined> {
    const row = await this.db
      .selectFrom('devices')
      .innerJoin('accounts', 'accounts.id', 'devices.account_id')
      .select([
        'devices.id as deviceId',
        'accounts.id as accountId',
        'accounts.number as accountNumber',
        'accounts.plan',
        'devices.tunnel_ipv4 as tunnelIpv4',
        'devices.tunnel_ipv6 as tunnelIpv6',
      ])
      .where('devices.token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row;
  }

  /** The peers of these ids (devices and device tunnels), with the plan and usage in `period`. */
  async feedRows(ids: readonly string[], period: string): Promise<FeedPeerRow[]> {
    if (ids.length === 0) return [];
    const [devices, tunnels] = await Promise.all([
      this.feedQuery(period)
        .where('devices.id', 'in', ids as string[])
        .execute(),
      this.tunnelFeedQuery(period)
        .where('device_tunnels.id', 'in', ids as string[])
        .execute(),
    ]);
    return [...devices, ...tunnels];
  }

  /** Every peer: the devices, then their tunnels. */
  async allFeedRows(period: string): Promise<FeedPeerRow[]> {
    const [devices, tunnels] = await Promise.all([
      this.feedQuery(period).orderBy('devices.seq').execute(),
      this.tunnelFeedQuery(period).orderBy('device_tunnels.id').execute(),
    ]);
    return [...devices, ...tunnels];
  }

  /** The peer ids of an account: its devices' and their tunnels'. */
  async peerIdsForAccount(accountId: number): Promise<string[]> {
    const [devices, tunnels] = await Promise.all([
      this.listForAccount(accountId),
      this.db
        .selectFrom('device_tunnels')
        .innerJoin('devices', 'devices.id', 'device_tunnels.device_id')
        .select('device_tunnels.id')
        .where('devices.account_id', '=', accountId)
        .execute(),
    ]);
    return [...devices.map((d) => d.id), ...tunnels.map((t) => t.id)];
  }

  private tunnelFeedQuery(period: string) {
    return this.db
      .selectFrom('device_tunnels')
      .innerJoin('devices', 'devices.id', 'device_tunnels.device_id')
      .innerJoin('accounts', 'accounts.id', 'devices.account_id')
      .leftJoin('usage', (join) =>
        join.onRef('usage.account_id', '=', 'devices.account_id').on('usage.period', '=', period),
      )
      .select([
        'device_tunnels.id',
        'devices.account_id',
        'device_tunnels.wireguard_public_key',
        'device_tunnels.ferry_public_key',
        'device_tunnels.tunnel_ipv4',
        'device_tunnels.tunnel_ipv6',
        'accounts.plan',
        (eb) => eb.fn.coalesce('usage.bytes', eb.lit(0)).as('usage_bytes'),
      ]);
  }

  private feedQuery(period: string) {
    return this.db
      .selectFrom('devices')
      .innerJoin('accounts', 'accounts.id', 'devices.account_id')
      .leftJoin('usage', (join) =>
        join.onRef('usage.account_id', '=', 'devices.account_id').on('usage.period', '=', period),
      )
      .select([
        ...COLUMNS,
        'accounts.plan',
        (eb) => eb.fn.coalesce('usage.bytes', eb.lit(0)).as('usage_bytes'),
      ]);
  }
}
