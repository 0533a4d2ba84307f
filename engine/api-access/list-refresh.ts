// Keeps the relay list fresh: whenever the engine reaches its service (at most every ten
// minutes, a minute after a failure), GET /relay-list in the background, offered to the relay
// lists (kept when it verifies and is newer). On first contact, when no service key is known
// yet, the key the service presents is recorded (`service_key`), once its list verifies with it.
import type { ClientConfig, ControlClient } from '../../contracts/index.js';
import { checkRelayList } from '../catalog/relay-list.js';
import type { RelayLists } from './relay-lists.js';

export const REFRESH_EVERY_MS = 10 * 60_000;
export const RETRY_AFTER_MS = 60_000;

export class RelayListRefresh {
  #nextAt = 0;
  #running: Promise<void> | null = null;

  constructor(
    private readonly d: {
      lists: RelayLists;
      /** Records the service's key presented on first contact. */
      recordKey: (key: string) => Promise<void>;
      /** A list was kept (the relays may differ from the last one's). */
      listChanged?: () => Promise<void>;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.d.now ?? Date.now)();
  }

  /** Starts a refresh when one is due; never waits for it, never fails. */
  maybe(client: ControlClient, config: ClientConfig): void {
    if (this.#running || this.now() < this.#nextAt) return;
    this.#running = this.run(client, config).finally(() => (this.#running = null));
  }

  /** The refresh under way, if any (tests, and a test of a method that wants the list). */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  private async run(client: ControlClient, config: ClientConfig): Promise<void> {
    try {
      const body = await client.relayList();
      let c = config;
      if (!this.d.lists.key(c) && checkRelayList(body, body.public_key, this.now()).ok) {
        await this.d.recordKey(body.public_key);
        c = { ...c, service_key: body.public_key };
      }
      const offered = await this.d.lists.offer(body, c);
      if (offered.ok) await this.d.listChanged?.().catch(() => undefined);
      this.#nextAt = this.now() + (offered.ok ? REFRESH_EVERY_MS : RETRY_AFTER_MS);
    } catch {
      this.#nextAt = this.now() + RETRY_AFTER_MS;
    }
  }
}
