// The regions port: the operator's regions and nodes and each node's reported health.

export interface RegionRow {
  id: string;
  name: string;
  area: string;
  country: string | null;
  /** The region's relays are offered as the entries of multihop paths. */
  entry: boolean;
}

/** A node as read back: everything but its token hash. */
export interface NodeRow {
  id: string;
  region_id: string;
  endpoint_host: string;
  wireguard_port: number;
  ferry_port: number | null;
  capacity_mbps: number;
  wireguard_public_key: string | null;
  ferry_public_key: string | null;
  load: number;
  rx_bps: number;
  tx_bps: number;
  /** Node health, not user data: when this node last said it was alive. */
  last_heartbeat_ms: number | null;
  /** Protocols whose data plane the node last reported degraded, comma-separated; null: none. */
  degraded: string | null;
  /** UDP port of the node's probe responder, as its relay last registered; null: none. */
  probe_port: number | null;
  /** TCP port of the node's TLS transport, as its relay last registered; null: none. */
  tls_port: number | null;
  /** The cover site's name clients put in their TLS hello; null without a TLS port. */
  tls_server_name: string | null;
  /** The probe key (base64), handed to signed-in devices with the node list. */
  probe_key: string | null;
}

/** A node's TLS transport: its port and the server name its clients' hellos carry. */
export interface NodeTls {
  port: number;
  serverName: string;
}

export interface NewNode {
  id: string;
  region_id: string;
  endpoint_host: string;
  wireguard_port: number;
  ferry_port: number | null;
  capacity_mbps: number;
  token_hash: string;
  probe_key: string;
}

export interface RegionsStore {
  /** By id. */
  listRegions(): Promise<RegionRow[]>;
  /** Returns false when the id is taken. */
  insertRegion(region: RegionRow): Promise<boolean>;
  /** Changes a region's name or entry flag; the row as it is now, undefined: no such region. */
  updateRegion(
    id: string,
    change: { name?: string; entry?: boolean },
  ): Promise<RegionRow | undefined>;
  insertNode(node: NewNode): Promise<void>;
  /** By id; every node, or those of one region. */
  listNodes(regionId?: string): Promise<NodeRow[]>;
  nodeById(id: string): Promise<NodeRow | undefined>;
  nodeByTokenHash(tokenHash: string): Promise<NodeRow | undefined>;
  /** What a node publishes when it registers: its public keys and its probe and TLS ports. */
  setNodeKeys(
    id: string,
    keys: {
      wireguardKey: string;
      ferryKey: string | null;
      probePort: number | null;
      tls: NodeTls | null;
      /** Set only where the node has none yet. */
      probeKeyIfNone: string;
    },
  ): Promise<void>;
  recordHeartbeat(
    id: string,
    h: { load: number; rx_bps: number; tx_bps: number; nowMs: number; degraded: string | null },
  ): Promise<void>;
}
