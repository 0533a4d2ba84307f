// The relay lists a client knows, and which one it uses: the list shipped with the client (and
// the service key shipped beside it), a list given to the daemon (`netcli daemon --relay-list
// FILE`), and the last good list the service gave (kept in the state dir, 0600). Each is checked
// with the service's key (checkRelayList): the daemon's `--service-key`, else the configuration's
// (`netcli init --service-key`, or the one the service presented on first contact), else the
// shipped one. The newest list that verifies is used; one that does not is refused, and the
// status says why, naming no address.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
  SignedRelayList,
  type ClientConfig,
  type RelayFacts,
  type SignedRelayList as SignedList,
} from '../../contracts/index.js';
import { checkRelayList, isServiceKey, type RelayListRefusal } from '../catalog/relay-list.js';
import { FerryError } from '../errors.js';
import { readStateFile, settingsFileErrors, writeStateFile } from '../state-dir.js';
import shipped from './shipped-relay-list.json' with { type: 'json' };

const SAVED_FILE = 'relay-list.json';

/** Where a list came from. */
export type RelayListSource = 'shipped' | 'given' | 'service';

/** What the client ships: the service's key and a list (either may be null: the lab's build). */
export interface ShippedRelayList {
  service_key: string | null;
  relay_list: unknown;
}

/** The list in use, or why there is none (the status's `relay_list`). */
export interface RelayListState {
  /** Relays in the list in use (0: none usable). */
  relays: number;
  source: RelayListSource | null;
  issued_at: string | null;
  expires_at: string | null;
  /** The last list refused, and why (a list that does not verify, or has expired). */
  refused: { source: RelayListSource; why: RelayListRefusal; message: string } | null;
  /** Where the key the lists are checked with comes from; null: no key is known yet. */
  key_from: 'daemon' | 'config' | 'shipped' | null;
}

/**
 * The shipped list and key (shipped-relay-list.json, bundled with the code: an operator's build
 * fills it with its service's key and a saved GET /relay-list; the lab's has neither).
 */
export const SHIPPED_RELAY_LIST: ShippedRelayList = shipped as ShippedRelayList;

/**
 * Reads a relay list file given to the daemon (`--relay-list FILE`): a body of GET /relay-list
 * saved as it came. Throws a FerryError naming the file when it cannot be read or is not one.
 */
export function readRelayListFile(file: string): SignedList {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new FerryError(
      'config-invalid',
      `cannot read the relay list ${file}: ${(e as Error).message}`,
    );
  }
  let parsed;
  try {
    parsed = SignedRelayList.safeParse(JSON.parse(text));
  } catch {
    parsed = { success: false as const };
  }
  if (!parsed.success)
    throw new FerryError(
      'config-invalid',
      `the relay list ${file} is not a signed relay list (save the body of GET /relay-list as it comes)`,
    );
  return parsed.data;
}

export class RelayLists {
  #saved: SignedList | null | undefined;
  /** The service's last offer, when it was refused (never stored: only said). */
  #offerRefused: RelayListState['refused'] = null;
  #state: RelayListState = {
    relays: 0,
    source: null,
    issued_at: null,
    expires_at: null,
    refused: null,
    key_from: null,
  };

  constructor(
    private readonly o: {
      stateDir: string;
      shipped: ShippedRelayList;
      /** `netcli daemon --relay-list FILE` (read) and `--service-key BASE64`. */
      given?: { list?: SignedList | undefined; key?: string | undefined };
      now?: () => number;
    },
  ) {
    if (o.given?.key !== undefined && !isServiceKey(o.given.key))
      throw new FerryError(
        'config-invalid',
        'the service key is base64 of 32 bytes (ferry-server --print-public-key prints it)',
      );
  }

  /** The key the lists are checked with, and where it comes from. */
  key(
    config: Pick<ClientConfig, 'service_key'>,
  ): { key: string; from: RelayListState['key_from'] } | null {
    if (this.o.given?.key) return { key: this.o.given.key, from: 'daemon' };
    if (config.service_key) return { key: config.service_key, from: 'config' };
    const shipped = this.o.shipped.service_key;
    if (shipped && isServiceKey(shipped)) return { key: shipped, from: 'shipped' };
    return null;
  }

  /** The state as of the last `relays()` or `offer()`. */
  get state(): RelayListState {
    return this.#state;
  }

  /** The relays of the newest list that verifies (none: an empty list, the state says why). */
  async relays(config: Pick<ClientConfig, 'service_key'>): Promise<RelayFacts[]> {
    const key = this.key(config);
    const candidates: { source: RelayListSource; body: unknown }[] = [];
    const saved = await this.saved();
    if (saved) candidates.push({ source: 'service', body: saved });
    if (this.o.given?.list) candidates.push({ source: 'given', body: this.o.given.list });
    if (this.o.shipped.relay_list)
      candidates.push({ source: 'shipped', body: this.o.shipped.relay_list });
    const now = (this.o.now ?? Date.now)();
    let best: {
      source: RelayListSource;
      list: { issued_at: string; expires_at: string; relays: RelayFacts[] };
    } | null = null;
    let refused: RelayListState['refused'] = null;
    if (key)
      for (const c of candidates) {
        const checked = checkRelayList(c.body, key.key, now);
        if (!checked.ok) {
          refused ??= { source: c.source, why: checked.why, message: checked.message };
          continue;
        }

        if (!best || Date.parse(checked.list.issued_at) > Date.parse(best.list.issued_at))
          best = { source: c.source, list: checked.list };
      }
    // The shipped list expiring while a newer one is in use is no news.
    if (best && refused?.why === 'expired' && refused.source === 'shipped') refused = null;
    this.#state = {
      relays: best?.list.relays.length ?? 0,
      source: best?.source ?? null,
      issued_at: best?.list.issued_at ?? null,
      expires_at: best?.list.expires_at ?? null,
      refused: this.#offerRefused ?? refused,
      key_from: key?.from ?? null,
    };
    return best?.list.relays ?? [];
  }

  /**
   * A list the service gave (GET /relay-list): kept when it verifies and is newer than the one
   * kept; refused (and kept out) when it does not, the last good one staying. Returns the check.
   */
  async offer(
    body: unknown,
    config: Pick<ClientConfig, 'service_key'>,
  ): Promise<{ ok: true } | { ok: false; why: RelayListRefusal | 'no-key'; message: string }> {
    const key = this.key(config);
    if (!key)
      return {
        ok: false,
        why: 'no-key',
        message: 'no service key is known to check the relay list with',
      };
    const checked = checkRelayList(body, key.key, (this.o.now ?? Date.now)());
    if (!checked.ok) {
      this.#offerRefused = { source: 'service', why: checked.why, message: checked.message };
      this.#state = { ...this.#state, refused: this.#offerRefused };
      return checked;
    }
    this.#offerRefused = null;
    const saved = await this.saved();
    const savedCheck = saved ? checkRelayList(saved, key.key, (this.o.now ?? Date.now)()) : null;
    if (
      !savedCheck?.ok ||
      Date.parse(checked.list.issued_at) >= Date.parse(savedCheck.list.issued_at)
    ) {
      const signed = SignedRelayList.parse(body);
      await writeStateFile(
        this.o.stateDir,
        path.join(this.o.stateDir, SAVED_FILE),
        signed,
        settingsFileErrors('relay list'),
      );
      this.#saved = signed;
    }
    await this.relays(config);
    return { ok: true };
  }

  private async saved(): Promise<SignedList | null> {
    if (this.#saved !== undefined) return this.#saved;
    try {
      this.#saved = await readStateFile(
        path.join(this.o.stateDir, SAVED_FILE),
        SignedRelayList,
        settingsFileErrors('relay list'),
      );
    } catch {
      // A kept list that cannot be read is no list: the others are still checked.
      this.#saved = null;
    }
    return this.#saved;
  }
}
