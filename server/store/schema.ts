// The database tables as Kysely sees them; the same schema on SQLite and PostgreSQL.
import type { Generated, Kysely } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  number: string;
  password_hash: string | null;
  plan: string;
}

export interface DevicesTable {
  /** Drives the stable tunnel addresses; never shown. */
  seq: Generated<number>;
  id: string;
  account_id: number;
  name: string;
  kind: string;
  wireguard_public_key: string;
  ferry_public_key: string;
  tunnel_ipv4: string;
  tunnel_ipv6: string;
  token_hash: string;
}

export interface RegionsTable {
  id: string;
  name: string;
  area: string;
  country: string | null;
  /** 1: the region's relays are offered as multihop entries (migration 10). */
  entry: Generated<number>;
}

export interface NodesTable {
  id: string;
  region_id: string;
  endpoint_host: string;
  wireguard_port: number;
  ferry_port: number | null;
  capacity_mbps: number;
  token_hash: string;
  wireguard_public_key: string | null;
  ferry_public_key: string | null;
  load: Generated<number>;
  rx_bps: Generated<number>;
  tx_bps: Generated<number>;
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
  /**
   * The probe key (32 bytes, base64): a node secret that signed-in devices get with the node
   * list, so stored as it is (not hashed). Every node has one; null only in a row written by an
   * older version between migrations, and then made at the node's next registration.
   */
  probe_key: string | null;
}

/**
 * A device's extra tunnel (a service tunnel): a peer of its own on the nodes, with its own keys
 * and addresses (from the devices' address sequence), not a device slot; gone with its device.
 */
export interface DeviceTunnelsTable {
  /** Its peer id: the `device_id` relays know it by. */
  id: string;
  device_id: string;
  tag: string;
  wireguard_public_key: string;
  ferry_public_key: string;
  tunnel_ipv4: string;
  tunnel_ipv6: string;
}

/**
 * A node's latest check of one streaming platform, as its relay reported it: node facts only
 * (no device, no user, nothing a user asked for).
 */
export interface NodePlatformsTable {
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

/** Nodes an operator asked to check their platforms now; taken by the node's next heartbeat. */
export interface PlatformCheckRequestsTable {
  node_id: string;
}

/** One row per change to a device that relays must apply; the feed's version is `version`. */
export interface PeerChangesTable {
  version: Generated<number>;
  device_id: string;
}

export interface FeedStateTable {
  id: number;
  /** Changes at or below this version were pruned: a relay behind it gets a snapshot. */
  floor: number;
  /** The quota period (YYYY-MM) the feed last rolled over to. */
  period: string | null;
}

/** Quota counters only: bytes per account per calendar month, no per-session records. */
export interface UsageTable {
  account_id: number;
  period: string;
  bytes: number;
}

export interface Tables {
  accounts: AccountsTable;
  devices: DevicesTable;
  device_tunnels: DeviceTunnelsTable;
  regions: RegionsTable;
  nodes: NodesTable;
  node_platforms: NodePlatformsTable;
  platform_check_requests: PlatformCheckRequestsTable;
  peer_changes: PeerChangesTable;
  feed_state: FeedStateTable;
  usage: UsageTable;
}

export type Db = Kysely<Tables>;
export type Dialect = 'sqlite' | 'postgres';
