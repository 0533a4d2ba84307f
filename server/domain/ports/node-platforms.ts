// The node platforms port: nodes' latest streaming-platform checks, and operators' requests that
// a node check now. Node facts only: no device, no user, nothing a user asked for.

export interface NodePlatformRow {
  node_id: string;
  platform: string;
  /** ok, proxy-detected, unavailable or unreachable. */
  verdict: string;
  /** 1: the platform answered with an answer its table entry recognises. */
  reachable: number;
  /** The catalogue's country the platform served the node; null: not read. */
  catalog_region: string | null;
  /** When the node checked (its own clock, epoch ms; never later than when it was reported). */
  checked_ms: number;
}

export interface NodePlatformsStore {
  /** Every node's results, by node and platform. */
  listAll(): Promise<NodePlatformRow[]>;
  /** Writes each row over the node's earlier result for that platform. */
  upsert(rows: readonly NodePlatformRow[]): Promise<void>;
  /** Drops a node's results older than `beforeMs` (platforms it no longer checks). */
  prune(nodeId: string, beforeMs: number): Promise<void>;
  /** Records that the node is to check its platforms now (once, however often asked). */
  requestCheck(nodeId: string): Promise<void>;
  /** Whether the node was asked to check since it last heard of it; the request is used up. */
  takeCheckRequest(nodeId: string): Promise<boolean>;
}
