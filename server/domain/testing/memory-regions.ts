// Regions, nodes and the nodes' platform checks in memory (test code): the domain's RegionsStore
// and NodePlatformsStore without SQL.
import type { NodePlatformRow, NodePlatformsStore } from '../ports/node-platforms.js';
import type { NewNode, NodeRow, RegionRow, RegionsStore } from '../ports/regions.js';
import { byKey, copy, refuseDuplicate, type TablesHolder } from './memory-tables.js';

/** A node as read back: everything but its token hash. */
function shown(row: NodeRow & { token_hash: string }): NodeRow {
  const { token_hash: _hidden, ...node } = row;
  return node;
}

export class MemoryRegions implements RegionsStore {
  constructor(private readonly h: TablesHolder) {}

  async listRegions(): Promise<RegionRow[]> {
    return [...this.h.t.regions].sort(byKey((r) => r.id)).map(copy);
  }

  async insertRegion(region: RegionRow): Promise<boolean> {
    if (this.h.t.regions.some((r) => r.id === region.id)) return false;
    this.h.t.regions.push(copy(region));
    return true;
  }

  async updateRegion(
    id: string,
    change: { name?: string; entry?: boolean },
  ): Promise<RegionRow | undefined> {
    const row = this.h.t.regions.find((r) => r.id === id);
    if (!row) return undefined;
    if (change.name !== undefined) row.name = change.name;
    if (change.entry !== undefined) row.entry = change.entry;
    return copy(row);
  }

  async insertNode(node: NewNode): Promise<void> {
    if (!this.h.t.regions.some((r) => r.id === node.region_id))
      throw new Error('foreign key constraint failed: nodes.region_id');
    const row = {
      ...node,
      wireguard_public_key: null,
      ferry_public_key: null,
      load: 0,
      rx_bps: 0,
      tx_bps: 0,
      last_heartbeat_ms: null,
      degraded: null,
      probe_port: null,
      tls_port: null,
      tls_server_name: null,
    };
    refuseDuplicate(this.h.t.nodes, row, ['id', 'token_hash']);
    this.h.t.nodes.push(row);
  }

  async listNodes(regionId?: string): Promise<NodeRow[]> {
    return this.h.t.nodes
      .filter((n) => !regionId || n.region_id === regionId)
      .sort(byKey((n) => n.id))
      .map(shown);
  }

  async nodeById(id: string): Promise<NodeRow | undefined> {
    const row = this.h.t.nodes.find((n) => n.id === id);
    return row && shown(row);
  }

  async nodeByTokenHash(tokenHash: string): Promise<NodeRow | undefined> {
    const row = this.h.t.nodes.find((n) => n.token_hash === tokenHash);
    return row && shown(row);
  }

  async setNodeKeys(id: string, keys: Parameters<RegionsStore['setNodeKeys']>[1]): Promise<void> {
    const row = this.h.t.nodes.find((n) => n.id === id);
    if (!row) return;
    row.wireguard_public_key = keys.wireguardKey;
    row.ferry_public_key = keys.ferryKey;
    row.probe_port = keys.probePort;
    row.tls_port = keys.tls?.port ?? null;
    row.tls_server_name = keys.tls?.serverName ?? null;
    row.probe_key ??= keys.probeKeyIfNone;
  }

  async recordHeartbeat(
    id: string,
    h: Parameters<RegionsStore['recordHeartbeat']>[1],
  ): Promise<void> {
    const row = this.h.t.nodes.find((n) => n.id === id);
    if (!row) return;
    row.load = h.load;
    row.rx_bps = h.rx_bps;
    row.tx_bps = h.tx_bps;
    row.last_heartbeat_ms = h.nowMs;
    row.degraded = h.degraded;
  }
}

export class MemoryNodePlatforms implements NodePlatformsStore {
  constructor(private readonly h: TablesHolder) {}

  async listAll(): Promise<NodePlatformRow[]> {
    return [...this.h.t.nodePlatforms]
      .sort(byKey((p) => `${p.node_id}\u0000${p.platform}`))
      .map(copy);
  }

  async upsert(rows: readonly NodePlatformRow[]): Promise<void> {
    for (const row of rows) {
      const t = this.h.t;
      t.nodePlatforms = t.nodePlatforms.filter(
        (p) => !(p.node_id === row.node_id && p.platform === row.platform),
      );
      t.nodePlatforms.push(copy(row));
    }
  }

  async prune(nodeId: string, beforeMs: number): Promise<void> {
    this.h.t.nodePlatforms = this.h.t.nodePlatforms.filter(
      (p) => !(p.node_id === nodeId && p.checked_ms < beforeMs),
    );
  }

  async requestCheck(nodeId: string): Promise<void> {
    if (!this.h.t.checkRequests.includes(nodeId)) this.h.t.checkRequests.push(nodeId);
  }

  async takeCheckRequest(nodeId: string): Promise<boolean> {
    const had = this.h.t.checkRequests.includes(nodeId);
    this.h.t.checkRequests = this.h.t.checkRequests.filter((n) => n !== nodeId);
    return had;
  }
}
