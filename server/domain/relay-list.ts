// The signed relay list (GET /relay-list): every registered relay's public facts, signed with
// the service's key (a port the domain declares; server/signing-key.ts keeps the key), valid for
// a week, so that clients that cannot reach the service know their relays and can check who
// made the list.
import type { RelayFacts, RelayListContent, SignedRelayList } from '../../contracts/index.js';
import type { Clock } from './clock.js';
import type { Inventory } from './inventory.js';

/** The service's signing key: its public half, and signatures by the private one. */
export interface ServiceSigner {
  /** base64 of the 32 raw bytes of the Ed25519 public key. */
  readonly publicKey: string;
  /** base64 of the Ed25519 signature of `data`. */
  sign(data: Buffer): string;
}

/** How long a client may use a list after the service made it. */
export const RELAY_LIST_TTL_MS = 7 * 24 * 3600 * 1000;

export class RelayLists {
  constructor(
    private readonly inventory: Pick<Inventory, 'listNodes'>,
    private readonly signer: ServiceSigner,
    private readonly clock: Clock,
    private readonly ttlMs = RELAY_LIST_TTL_MS,
  ) {}

  /** The list as of now, signed. Relays that never registered their keys are left out. */
  async signed(): Promise<SignedRelayList> {
    const now = this.clock.nowMs();
    const relays: RelayFacts[] = [];
    for (const n of await this.inventory.listNodes(undefined)) {
      if (n.wireguard_public_key === null) continue;
      relays.push({
        id: n.id,
        region: n.region,
        endpoint_host: n.endpoint_host,
        wireguard_port: n.wireguard_port,
        wireguard_public_key: n.wireguard_public_key,
        ferry_port: n.ferry_port,
        ferry_public_key: n.ferry_public_key,
        tls_port: n.tls_port ?? null,
        tls_server_name: n.tls_server_name ?? null,
      });
    }
    const content: RelayListContent = {
      version: 1,
      issued_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.ttlMs).toISOString(),
      relays,
    };
    const bytes = Buffer.from(JSON.stringify(content));
    return {
      list: bytes.toString('base64'),
      signature: this.signer.sign(bytes),
      public_key: this.signer.publicKey,
    };
  }
}
