// The device tunnels port: service tunnels with their keys and addresses, which take their
// addresses from the devices' sequence so that no tunnel address is ever anyone else's.

export interface TunnelRow {
  /** Its peer id: the `device_id` relays know it by. */
  id: string;
  device_id: string;
  tag: string;
  wireguard_public_key: string;
  ferry_public_key: string;
  tunnel_ipv4: string;
  tunnel_ipv6: string;
}

export interface TunnelsStore {
  /**
   * The next number of the devices' address sequence, taken for a tunnel: a device signed in
   * later gets a higher one, and numbers are never reused. Inside a transaction.
   */
  nextAddressSeq(): Promise<number>;
  /** Serialises, until the transaction ends, the writers of one device's tunnels. */
  lockDevice(deviceId: string): Promise<void>;
  insert(row: TunnelRow): Promise<void>;
  /** By tag. */
  listForDevice(deviceId: string): Promise<TunnelRow[]>;
  get(deviceId: string, tag: string): Promise<TunnelRow | undefined>;
  /** Removes one tunnel; returns its id, or undefined when there was none. */
  delete(deviceId: string, tag: string): Promise<string | undefined>;
  /** Removes every tunnel of a device (it is being revoked); returns their ids. */
  deleteForDevice(deviceId: string): Promise<string[]>;
}
