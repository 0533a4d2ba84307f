// Puts a protection policy in force: the `inet ferry` table in one nft transaction, and the
// split tunnel's policy rule beside it; or takes both away. One change at a time.
import type { Firewall } from '../../platform/os/nftables.js';
import type { PolicyRule, Routes } from '../../platform/os/routes.js';
import type { Sysctl } from '../../platform/os/sysctl.js';
import { SerialQueue } from '../serial-queue.js';
import {
  PROTECTION_TABLE,
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

/** Whether a rule is the split tunnel's (ours, also when a crash left it). */
export function isSplitRule(rule: PolicyRule): boolean {
  return (
    rule.family === 4 &&
    rule.priority === SPLIT_RULE_PRIORITY &&
    rule.table === 'main' &&
    rule.fwmark === SPLIT_FWMARK
  );
}

export interface ProtectionDeps {
  firewall: Firewall;
  routes: Routes;
  sysctl: Sysctl;
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
        await this.removeSplitRule();
        return;
      }
      const body = protectionTable(policy);
      if (policy.split) {
        await this.addSplitRule();
        // Replies to marked connections pass a strict reverse-path filter only with this.
        await this.deps.sysctl.set('net.ipv4.conf.all.src_valid_mark', '1').catch(() => undefined);
      }
      await this.deps.firewall.apply(PROTECTION_TABLE, body);
      this.#inForce = policy;
      if (!policy.split) await this.removeSplitRule();
    });
  }

  /** Whether the table exists (this run's, or one a crash left: the rules stay in the kernel). */
  present(): Promise<boolean> {
    return this.deps.firewall.exists(PROTECTION_TABLE);
  }

  private async addSplitRule(): Promise<void> {
    const rules = await this.deps.routes.listRules(4);
    if (!rules.some(isSplitRule)) await this.deps.routes.addRule(splitRule());
  }

  private async removeSplitRule(): Promise<void> {
    for (const rule of (await this.deps.routes.listRules(4)).filter(isSplitRule))
      await this.deps.routes.deleteRule(rule);
  }
}
