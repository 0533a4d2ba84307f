// One holder and one kind per public key. A relay finds a peer by its key: a key that two
// devices, a device and a tunnel, a device and a node, or both kinds of one device shared would
// route one party's packets to another, or leave a relay unable to start (two nodes with one key).
import type { FieldError } from '../../contracts/index.js';
import { fail, ok, type Result } from './errors.js';
import type { KeyField, KeyHoldersStore } from './ports/key-holders.js';

export interface KeyOwner {
  kind: 'device' | 'tunnel' | 'node';
  id: string;
}

export interface KeyClaim {
  owner: KeyOwner;
  /** The owner's keys once the change is made (null: none of that kind). */
  after: Record<KeyField, string | null>;
  /** The fields the change sets: only their keys are checked against other holders. */
  changed: readonly KeyField[];
  /** Where the fields sit in the request body, for the field errors ('' or 'device.'). */
  fieldPrefix: string;
}

const HELD_BY_OTHER: Record<KeyOwner['kind'], string> = {
  device:
    'that public key is already in use by another device or a relay node; generate a new key pair',
  tunnel:
    'that public key is already in use by a device, a tunnel or a relay node; generate a new key pair for the tunnel',
  node: 'that public key is already registered by another node or a device: each relay needs its own keys (its own --state-dir)',
};

/**
 * Checks, inside the transaction that will store them, that the keys are the owner's alone:
 * refused with `key-in-use` (409) when the two kinds are one key, or another device or node
 * holds one. On PostgreSQL the keys stay locked until the transaction ends.
 */
export async function claimKeys(keys: KeyHoldersStore, claim: KeyClaim): Promise<Result<void>> {
  const { after, changed, fieldPrefix, owner } = claim;
  if (
    after.wireguard_public_key !== null &&
    after.wireguard_public_key === after.ferry_public_key
  ) {
    const field = changed.includes('ferry_public_key')
      ? 'ferry_public_key'
      : 'wireguard_public_key';
    return fail(
      'key-in-use',
      'wireguard_public_key and ferry_public_key must differ: each protocol needs its own key pair',
      { errors: [{ field: fieldPrefix + field, message: 'the same key as the other kind' }] },
    );
  }
  const wanted = changed.map((f) => after[f]).filter((k): k is string => k !== null);
  await keys.lock(wanted);
  const taken = (await keys.holders(wanted)).filter(
    (h) => !(h.kind === owner.kind && h.id === owner.id),
  );
  if (taken.length === 0) return ok(undefined);
  const errors: FieldError[] = changed
    .filter((f) => taken.some((h) => h.key === after[f]))
    .map((f) => ({ field: fieldPrefix + f, message: 'in use by another device or node' }));
  return fail('key-in-use', HELD_BY_OTHER[owner.kind], { errors });
}
