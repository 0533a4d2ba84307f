// Regions and nodes: the operator's inventory and each node's reported health.
import type { Selectable } from 'kysely';
import type { Db, NodesTable, RegionsTable } from './schema.js';

/** A region as read back, its entry flag a boolean. */
export type RegionRow = Omit<Selectable<RegionsTable>, 'entry'> & { entry: boolean };

const regionOf = (r: Selectable<RegionsTable>): RegionRow => ({
  id: r.id,
  name: r.name,
  area: r.area,
  country: r.country,
  entry: Number(r.entry) === 1,
});

/** A node as read back: everything but its token hash. */
export type NodeRow = Omit<Selectable<NodesTable>, 'token_hash'>;

const NODE_COLUMNS = [
  'id',
  'region_id',
  'endpoint_host',
  'wireguard_port',
  'ferry_port',
  'capacity_mbps',
  'wireguard_public_key',
  'ferry_public_key',
  'load',
  'rx_bps',
  'tx_bps',
  'last_heartbeat_ms',
  'degraded',
  'probe_port',
  'probe_key',
  'tls_port',
  'tls_server_name',
] as const satisfies readonly (keyof NodeRow)[];

/** Bound to the database, or to one transaction (SqlStores.transaction). */
export class RegionsRepo {
  constructor(private readonly db: Db) {}

  async listRegions(): Promise<RegionRow[]> {
    return (await this.db.selectFrom('regions').selectAll().orderBy('id').execute()).map(regionOf);
  }

  /** Returns false when the id is taken. */
  async insertRegion(r: RegionRow): Promise<boolean> {
    const row = await this.db
      .insertInto('regions')
      .values({ ...r, entry: r.entry ? 1 : 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async updateRegion(
    id: string,
    change: { name?: string; entry?: boolean },
  ): Promise<RegionRow | undefined> {
    const set = {
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.entry !== undefined ? { entry: change.entry ? 1 : 0 } : {}),
    };
    if (Object.keys(set).length > 0)
      await this.db.updateTable('regions').set(set).where('id', '=', id).execute();
    const row = await this.db
      .selectFrom('regions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && regionOf(row);
  }

  /** A new node: its keys come with its registration, its health with its heartbeats. */
  async insertNode(
    n: Pick<
      Selectable<NodesTable>,
      | 'id'
      | 'region_id'
      | 'endpoint_host'
      | 'wireguard_port'
      | 'ferry_port'
      | 'capacity_mbps'
      | 'token_hash'
    > & { probe_key: string },
  ): Promise<void> {
    await this.db.insertInto('nodes').values(n).execute();
  }

  listNodes(regionId?: string): Promise<NodeRow[]> {
    let q = this.db.selectFrom('nodes').select(NODE_COLUMNS).orderBy('id');
    if (regionId) q = q.where('region_id', '=', regionId);
    return q.execute();
  }

  nodeById(id: string): Promise<NodeRow | undefined> {
    return this.db.selectFrom('nodes').select(NODE_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  nodeByTokenHash(tokenHash: string): Promise<NodeRow | undefined> {
    return this.db
      .selectFrom('nodes')
      .select(NODE_COLUMNS)
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  /** What a node publishes when it registers: its public keys and its probe and TLS ports. */
  async setNodeKeys(
    id: string,
    keys: {
      wireguardKey: string;
      ferryKey: string | null;
      probePort: number | null;
      tls: { port: number; serverName: string } | null;
      /** Set only where the node has none yet. */
      probeKeyIfNone: string;
    },
  ): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set((eb) => ({
        wireguard_public_key: keys.wireguardKey,
        ferry_public_key: keys.ferryKey,
        probe_port: keys.probePort,
        tls_port: keys.tls?.port ?? null,
        tls_server_name: keys.tls?.serverName ?? null,
        probe_key: eb.fn.coalesce('probe_key', eb.val(keys.probeKeyIfNone)),
      }))
      .where('id', '=', id)
      .execute();
  }

  async recordHeartbeat(
    id: string,
    h: { load: number; rx_bps: number; tx_bps: number; nowMs: number; degraded: string | null },
  ): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set({
        load: h.load,
        rx_bps: h.rx_bps,
        tx_bps: h.tx_bps,
        last_heartbeat_ms: h.nowMs,
        degraded: h.degraded,
      })
      .where('id', '=', id)
      .execute();
  }
}
