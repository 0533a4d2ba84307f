// The addresses the engine's resolver gave for the split rules' names, put in the rules' nftables
// sets before the answer leaves (so that the first packet to them already goes the rule's way),
// each for as long as its answer holds: a CDN name whose addresses change keeps its rule.
import type { SplitVia } from '../../contracts/index.js';
import type { Firewall, NftObject } from '../../platform/os/nftables.js';
import { PROTECTION_TABLE, RULE_SETS } from '../protection/firewall-policy.js';

/**
 * An address stays in its set at least this long, whatever its answer's TTL: a program may go
 * on using an answer a little beyond it (and connections begun keep their way anyway).
 */
export const MIN_RULE_TIMEOUT_S = 120;
/** An answer's address is put in again once less than this share of its time is left. */
const RENEW_SHARE = 0.5;

interface Held {
  via: SplitVia;
  address: string;
  expiresMs: number;
  timeoutS: number;
}

export class RuleAddresses {
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly firewall: Pick<Firewall, 'addElements'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Puts `addresses` in the set of `via` for `ttlS` (at least MIN_RULE_TIMEOUT_S); resolves once
   * the kernel has them. Addresses held long enough already cost nothing. Rejects when the
   * table is not there (no connection): the caller must not answer as if the rule held.
   */
  async add(via: SplitVia, addresses: readonly string[], ttlS: number): Promise<void> {
    const timeoutS = Math.max(MIN_RULE_TIMEOUT_S, Math.ceil(ttlS));
    const now = this.now();
    const due = addresses.filter((address) => {
      const h = this.#held.get(`${via} ${address}`);
      return !h || h.expiresMs - now < timeoutS * 1000 * RENEW_SHARE;
    });
    if (due.length === 0) return;
    const fresh = due.map((address) => ({
      via,
      address,
      timeoutS,
      expiresMs: now + timeoutS * 1000,
    }));
    await this.firewall.addElements(
      PROTECTION_TABLE,
      elementsOf(fresh, () => timeoutS),
    );
    for (const h of fresh) this.#held.set(`${via} ${h.address}`, h);
  }

  /**
   * The addresses still held, each with the time it has left, as element objects: what a table
   * made anew must hold again (Protection's liveElements).
   */
  elements(): NftObject[] {
    const now = this.now();
    const live: Held[] = [];
    for (const [key, h] of this.#held) {
      if (h.expiresMs - now < 1000) this.#held.delete(key);
      else live.push(h);
    }
    return elementsOf(live, (h) => Math.floor((h.expiresMs - now) / 1000));
  }

  /** Forgets every address (the table went, or the rules changed). */
  clear(): void {
    this.#held.clear();
  }

  get size(): number {
    return this.#held.size;
  }
}

function elementsOf(held: readonly Held[], timeout: (h: Held) => number): NftObject[] {
  const out: NftObject[] = [];
  for (const via of ['tunnel', 'direct'] as const) {
    const elem = held
      .filter((h) => h.via === via)
      .map((h) => ({ elem: { val: h.address, timeout: timeout(h) } }));
    if (elem.length > 0) out.push({ element: { name: RULE_SETS[via], elem } });
  }
  return out;
}
