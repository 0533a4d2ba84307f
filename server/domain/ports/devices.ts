// The devices port: devices with their keys, stable tunnel addresses and hashed tokens, and the
// peers (devices and their tunnels) as the feed needs them.
import type { LiveSession } from '../live-sessions.js';

/** The device a request's token belongs to, with its account. */
export interface DeviceAuth {
  deviceId: string;
  accountId: number;
  accountNumber: string;
  plan: string;
  /** Fixed at sign-in and never changed: connect answers with them without another read. */
  tunnelIpv4: string;
  tunnelIpv6: string;
  /**
   * The device's live session (null: none) where the store reads it in the same round trip
   * as the token (PostgreSQL); undefined where it does not. As of authentication, so for the
   * request at hand only, never for a long-lived stream; never kept by a cache.
   */
  sessionAtAuth?: LiveSession | null;
}

/** A device as read back: everything but its token hash. */
export interface DeviceRow {
  /** Drives the stable tunnel addresses; never shown. */
  seq: number;
  id: string;
  account_id: number;
  name: string;
  kind: string;
  wireguard_public_key: string;
  ferry_public_key: string;
  tunnel_ipv4: string;
  tunnel_ipv6: string;
}

/** A device to store: its addresses come from the sequence number `insert` answers. */
export type NewDevice = Omit<DeviceRow, 'seq' | 'tunnel_ipv4' | 'tunnel_ipv6'> & {
  token_hash: string;
};

/**
 * A peer as the feed needs it: a device, or one of its tunnels (its own id, keys and addresses),
 * with the account's plan.
 */
export interface FeedPeerRow {
  id: string;
  account_id: number;
  wireguard_public_key: string;
  ferry_public_key: string;
  tunnel_ipv4: string;
  tunnel_ipv6: string;
  plan: string;
  /** The account's bytes in the period asked for. */
  usage_bytes: number;
}

export interface DevicesStore {
  countForAccount(accountId: number): Promise<number>;
  /** Inserts and returns the sequence number that the tunnel addresses derive from. */
  insert(device: NewDevice): Promise<number>;
  setAddresses(id: string, ipv4: string, ipv6: string): Promise<void>;
  /** In the order they were added. */
  listForAccount(accountId: number): Promise<DeviceRow[]>;
  /** Another account's device is indistinguishable from a missing one. */
  get(accountId: number, id: string): Promise<DeviceRow | undefined>;
  rename(accountId: number, id: string, name: string): Promise<boolean>;
  delete(accountId: number, id: string): Promise<boolean>;
  /** Sets the keys given; an absent one stays as it is. */
  setKeys(
    id: string,
    keys: { wireguard_public_key?: string | undefined; ferry_public_key?: string | undefined },
  ): Promise<void>;
  authByTokenHash(tokenHash: string): Promise<DeviceAuth | undefined>;
  /** The peers of these ids (devices and device tunnels), with the plan and usage in `period`. */
  feedRows(ids: readonly string[], period: string): Promise<FeedPeerRow[]>;
  /** Every peer: the devices in the order they were added, then their tunnels by id. */
  allFeedRows(period: string): Promise<FeedPeerRow[]>;
  /** The peer ids of an account: its devices' and their tunnels'. */
  peerIdsForAccount(accountId: number): Promise<string[]>;
}
