// Puts a protection policy in force: the `inet ferry` table in one nft transaction, and the
// split tunnel's policy rule beside it; or takes both away. One change at a time.
import type { Firewall, NftObject } from '../../platform/os/nftables.js';
import type { PolicyRule, Routes } from '../../platform/os/routes.js';
import type { Sysctl } from '../../platform/os/sysctl.js';
import { SerialQueue } from '../serial-queue.js';
import {
  PROTECTION_TABLE,
  RESOLVER_FWMARK,
  SPLIT_FWMARK,
  protectionTable,
  type ProtectionPolicy,
} from './firewall-policy.js';

/**
 * Packets the split tunnel marked look up the main table (its default route: around the tunnel),
 * before the full tunnel's rules (32700, 32701) can send them into the tunnel.
 */
export const SPLIT_RULE_PRIORITY = 32699;

export function splitRule(): PolicyRule {
  return { family: 4, priority: SPLIT_RULE_PRIORITY, table: 'main', fwmark: SPLIT_FWMARK };
}

/** The engine's resolver's questions to the home network's resolver go around the tunnel too. */
export const RESOLVER_RULE_PRIORITY = 32698;

export function resolverRule(): PolicyRule {
  return { family: 4, priority: RESOLVER_RULE_PRIORITY, table: 'main', fwmark: RESOLVER_FWMARK };
}

const sameRule = (a: PolicyRule, b: PolicyRule) =>
  a.family === b.family &&
  a.priority === b.priority &&
  a.table === b.table &&
  a.fwmark === b.fwmark;

/** Whether a rule is the split tunnel's (ours, also when a crash left it). */
export function isSplitRule(rule: PolicyRule): boolean {
  return sameRule(rule, splitRule());
}

/** Whether a rule is one of the protection's own (the split's, the resolver's). */
const isOurRule = (rule: PolicyRule) => isSplitRule(rule) || sameRule(rule, resolverRule());

export interface ProtectionDeps {
  firewall: Firewall;
  routes: Routes;
  sysctl: Sysctl;
  /**
   * Elements of the table's sets that come and go while it stands (the split rules' addresses,
   * each with the time it has left): given with every table, so that a table made anew keeps
   * them. None by default.
   */
  liveElements?: () => NftObject[];
}

export class Protection {
  readonly #queue = new SerialQueue();
  #inForce: ProtectionPolicy | null = null;

  constructor(private readonly deps: ProtectionDeps) {}

  /** The policy this process put in force last (null: none, or lifted). */
  get inForce(): ProtectionPolicy | null {
    return this.#inForce;
  }

  /**
   * Makes `policy` the one in force (null: none). A failure rejects with the FerryError of the
   * step that failed and leaves the previous table whole (nft applies all of a transaction or
   * nothing): the caller must not go on as if the new policy held.
   */
  enforce(policy: ProtectionPolicy | null): Promise<void> {
    return this.#queue.run(async () => {
      if (policy === null) {
        await this.deps.firewall.remove(PROTECTION_TABLE);
        this.#inForce = null;
        await this.removeRules();
        return;
      }
      const body = protectionTable(policy);
      const steering = policy.split !== null || (policy.rules ?? null) !== null;
      const wanted = [
        ...(steering ? [splitRule()] : []),
        ...((policy.homeDns ?? []).length > 0 ? [resolverRule()] : []),
      ];
      await this.addRules(wanted);
      if (steering) {
        // Replies to marked connections pass a strict reverse-path filter only with this.
        await this.deps.sysctl.set('net.ipv4.conf.all.src_valid_mark', '1').catch(() => undefined);
        body.push(...(this.deps.liveElements?.() ?? []));
      }
      await this.deps.firewall.apply(PROTECTION_TABLE, body);
      this.#inForce = policy;
      await this.removeRules(wanted);
    });
  }

  /** Whether the table exists (this run's, or one a crash left: the rules stay in the kernel). */
  present(): Promise<boolean> {
    return this.deps.firewall.exists(PROTECTION_TABLE);
  }

  /** Adds each of `wanted` that is not there yet. */
  private async addRules(wanted: readonly PolicyRule[]): Promise<void> {
    if (wanted.length === 0) return;
    const rules = await this.deps.routes.listRules(4);
    for (const w of wanted)
      if (!rules.some((r) => sameRule(r, w))) await this.deps.routes.addRule(w);
  }

  /** Removes every rule of ours but those `kept`. */
  private async removeRules(kept: readonly PolicyRule[] = []): Promise<void> {
    for (const rule of (await this.deps.routes.listRules(4)).filter(isOurRule))
      if (!kept.some((k) => sameRule(k, rule))) await this.deps.routes.deleteRule(rule);
  }
}
