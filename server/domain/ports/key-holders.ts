// The key holders port: who holds a public key (devices, their tunnels and nodes, both kinds).

export type KeyField = 'wireguard_public_key' | 'ferry_public_key';

export interface KeyHolder {
  kind: 'device' | 'tunnel' | 'node';
  id: string;
  field: KeyField;
  key: string;
}

/** Used inside the transaction that stores the keys. */
export interface KeyHoldersStore {
  /**
   * Serialises, until the transaction ends, the writers of these keys: two sign-ins or node
   * registrations with the same key cannot both find it free.
   */
  lock(keys: readonly string[]): Promise<void>;
  holders(keys: readonly string[]): Promise<KeyHolder[]>;
}
