// `netcli split add|list|remove` and `netcli exec`: the store changes, then what holds the rules
// follows at once: the engine's resolver reads the new domain rules (nothing it cached for them
// holds) and their sets start again empty (a removed rule's addresses go with it); the program
// rules' processes are put on their ways.
import { stat } from 'node:fs/promises';

import {
  isAppRule,
  type SplitRule,
  type SplitRulesResponse,
  type SplitRuleTarget,
  type SplitVia,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import type { AppSplit } from './app-split.js';
import { withSplitRule, type SplitRuleStore } from './split-rules.js';

export interface SplitRuleDeps {
  store: SplitRuleStore;
  /** The domain rules changed: the resolver and the sets follow (nothing when not connected). */
  rulesChanged(rules: readonly SplitRule[]): Promise<void>;
  /** Programs on their ways; null: not supported here. */
  apps: AppSplit | null;
}

function noApps(): FerryError {
  return new FerryError('not-supported', 'split rules by program are not supported here');
}

export class SplitRuleCommands {
  constructor(private readonly deps: SplitRuleDeps) {}

  async list(): Promise<SplitRulesResponse> {
    return { rules: await this.deps.store.list() };
  }

  async add(rule: SplitRule): Promise<SplitRule> {
    if (isAppRule(rule)) {
      if (!this.deps.apps) throw noApps();
      const st = await stat(rule.app).catch(() => null);
      if (!st?.isFile())
        throw new FerryError('config-invalid', `there is no program at ${rule.app}`, {
          errors: [{ field: 'app', message: 'the path of a program on this host' }],
        });
    }
    if (isAppRule(rule)) {
      // In force first: a rule that cannot hold here (no cgroup v2, nft refusing) is not kept.
      const rules = withSplitRule(await this.deps.store.list(), rule);
      await this.deps.apps!.setRules(rules.filter(isAppRule));
      return this.deps.store.add(rule);
    }
    const added = await this.deps.store.add(rule);
    await this.changed(false);
    return added;
  }

  async remove(target: SplitRuleTarget): Promise<void> {
    await this.deps.store.remove(target);
    await this.changed('app' in target);
  }

  /** `netcli exec`: its process on `via`, and so the program it starts. */
  async exec(pid: number, via: SplitVia): Promise<void> {
    if (!this.deps.apps) throw noApps();
    await this.deps.apps.exec(pid, via);
  }

  /** At the engine's start: the program rules' processes are looked for. */
  async start(): Promise<void> {
    const rules = (await this.deps.store.list()).filter(isAppRule);
    if (rules.length > 0 && this.deps.apps) await this.deps.apps.setRules(rules);
  }

  private async changed(apps: boolean): Promise<void> {
    const rules = await this.deps.store.list();
    if (apps) await this.deps.apps?.setRules(rules.filter(isAppRule));
    else await this.deps.rulesChanged(rules);
  }
}
