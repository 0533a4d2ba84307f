// `netcli split add|list|remove` (by domain): the store changes, then what holds the rules follows
// at once: the engine's resolver reads the new rules (nothing it cached for them holds), and the
// rules' sets start again empty (a removed rule's addresses go with it).
import type { SplitRule, SplitRulesResponse } from '../../contracts/index.js';
import type { SplitRuleStore } from './split-rules.js';

export interface SplitRuleDeps {
  store: SplitRuleStore;
  /** The rules changed: the resolver and the sets follow (nothing when not connected). */
  rulesChanged(rules: readonly SplitRule[]): Promise<void>;
}

export class SplitRuleCommands {
  constructor(private readonly deps: SplitRuleDeps) {}

  async list(): Promise<SplitRulesResponse> {
    return { rules: await this.deps.store.list() };
  }

  async add(rule: SplitRule): Promise<SplitRule> {
    const added = await this.deps.store.add(rule);
    await this.deps.rulesChanged(await this.deps.store.list());
    return added;
  }

  async remove(domain: string): Promise<void> {
    await this.deps.store.remove(domain);
    await this.deps.rulesChanged(await this.deps.store.list());
  }
}
