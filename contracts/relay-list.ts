// The signed relay list (GET /relay-list): the relays' public facts, signed by the service's own
// Ed25519 key, so that a client that cannot reach the service still knows where its relays are
// and can tell a list the service made from one someone else made. The signature covers the
// list's exact bytes (`list` is their base64): no canonical form to agree on.
import { z } from 'zod';

import { NODE_ENDPOINT } from './control-api.js';

/** What a client needs to reach a relay: no load, no health (they change by the second). */
export const RelayFacts = z
  .object({
    ...NODE_ENDPOINT,
    tls_port: z.number().int().nullable(),
    tls_server_name: z.string().nullable(),
  })
  .meta({ id: 'RelayFacts' });
export type RelayFacts = z.infer<typeof RelayFacts>;

/** The list itself, as the signed bytes hold it (JSON). */
export const RelayListContent = z.object({
  version: z.literal(1),
  /** ISO 8601: when the service made the list, and until when a client may use it. */
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  relays: z.array(RelayFacts),
});
export type RelayListContent = z.infer<typeof RelayListContent>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const SignedRelayList = z
  .object({
    list: z
      .string()
      .regex(BASE64)
      .describe('base64 of the list as JSON bytes: {version, issued_at, expires_at, relays}.'),
    signature: z
      .string()
      .regex(BASE64)
      .describe("base64 of the Ed25519 signature of those bytes by the service's key."),
    public_key: z
      .string()
      .regex(BASE64)
      .describe(
        "base64 of the service's public key (32 raw bytes), for a client to compare with the key it knows: never a reason to trust the list by itself.",
      ),
  })
  .meta({ id: 'SignedRelayList' });
export type SignedRelayList = z.infer<typeof SignedRelayList>;
