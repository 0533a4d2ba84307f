// Nodes' latest streaming-platform checks, and operators' requests that a node check now.
import type { Selectable } from 'kysely';
import type { Db, NodePlatformsTable } from './schema.js';

export type NodePlatformRow = Selectable<NodePlatformsTable>;

export class NodePlatformsRepo {
  constructor(private readonly db: Db) {}

  /** Every node's results, by node and platform. */
  listAll(): Promise<NodePlatformRow[]> {
    return this.db
      .selectFrom('node_platforms')
      .selectAll()
      .orderBy('node_id')
      .orderBy('platform')
      .execute();
  }

  /** Writes each row over the node's earlier result for that platform. */
  async upsert(rows: readonly NodePlatformRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('node_platforms')
      .values([...rows])
      .onConflict((oc) =>
        oc.columns(['node_id', 'platform']).doUpdateSet((eb) => ({
          verdict: eb.ref('excluded.verdict'),
          reachable: eb.ref('excluded.reachable'),
          catalog_region: eb.ref('excluded.catalog_region'),
          checked_ms: eb.ref('excluded.checked_ms'),
        })),
      )
      .execute();
  }

  /** Drops a node's results older than `beforeMs` (platforms it no longer checks). */
  async prune(nodeId: string, beforeMs: number): Promise<void> {
    await this.db
      .deleteFrom('node_platforms')
      .where('node_id', '=', nodeId)
      .where('checked_ms', '<', beforeMs)
      .execute();
  }

  /** Records that the node is to check its platforms now (once, however often asked). */
  async requestCheck(nodeId: string): Promise<void> {
    await this.db
      .insertInto('platform_check_requests')
      .values({ node_id: nodeId })
      .onConflict((oc) => oc.column('node_id').doNothing())
      .execute();
  }

  /** Whether the node was asked to check since it last heard of it; the request is used up. */
  async takeCheckRequest(nodeId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('platform_check_requests')
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
