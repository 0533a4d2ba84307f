// A signed relay list (GET /relay-list, or a body of it saved to a file) checked before the
// client uses it: signed by the service's key (the one the client knows, never the one the list
// names), over its exact bytes, not expired, and of the expected shape. The words say what was
// wrong, never an address.
import { createPublicKey, verify } from 'node:crypto';

import { RelayListContent, ServiceKey, SignedRelayList } from '../../contracts/index.js';

export type RelayListRefusal = 'malformed' | 'unknown-key' | 'bad-signature' | 'expired';

export type RelayListCheck =
  { ok: true; list: RelayListContent } | { ok: false; why: RelayListRefusal; message: string };

/** The SPKI DER prefix of an Ed25519 public key; its 32 raw bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const refuse = (why: RelayListRefusal, message: string): RelayListCheck => ({
  ok: false,
  why,
  message,
});

/** Whether `serviceKey` is a base64 Ed25519 public key (32 bytes). */
export function isServiceKey(serviceKey: string): boolean {
  return ServiceKey.safeParse(serviceKey).success;
}

export function checkRelayList(body: unknown, serviceKey: string, nowMs: number): RelayListCheck {
  if (!isServiceKey(serviceKey)) throw new TypeError('a service key is base64 of 32 bytes');
  const signed = SignedRelayList.safeParse(body);
  if (!signed.success) return refuse('malformed', 'the relay list is not a signed list');
  if (signed.data.public_key !== serviceKey)
    return refuse(
      'unknown-key',
      'the relay list is signed with another key than the service’s: it was not made by this service',
    );
  const bytes = Buffer.from(signed.data.list, 'base64');
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(serviceKey, 'base64')]),
    format: 'der',
    type: 'spki',
  });
  if (!verify(null, bytes, key, Buffer.from(signed.data.signature, 'base64')))
    return refuse('bad-signature', 'the relay list’s signature does not verify: it was changed');
  let content;
  try {
    content = RelayListContent.safeParse(JSON.parse(bytes.toString('utf8')));
  } catch {
    return refuse('malformed', 'the relay list is signed, but its content is not JSON');
  }
  if (!content.success)
    return refuse('malformed', 'the relay list is signed, but not a relay list');
  const expires = Date.parse(content.data.expires_at);
  if (!(expires > nowMs))
    return refuse(
      'expired',
      `the relay list expired on ${content.data.expires_at.slice(0, 10)}: a newer one comes from the service`,
    );
  return { ok: true, list: content.data };
}
