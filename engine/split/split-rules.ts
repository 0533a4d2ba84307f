// The split rules by domain and by program (`netcli split add|list|remove`), kept in
// `<stateDir>/split-rules.json`: the engine's resolver sends a domain rule's names its way, the
// program rules' processes are put in their way's cgroup.
import path from 'node:path';
import { z } from 'zod';

import {
  SPLIT_VIAS,
  SplitAppPath,
  SplitDomain,
  isDomainRule,
  splitRuleTarget,
  type SplitRule,
  type SplitRuleTarget,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { DEFAULT_STATE_DIR, readStateFile, writeStateFile } from '../state-dir.js';
import { SerialQueue } from '../serial-queue.js';

export const SPLIT_RULES_FILE = 'split-rules.json';

const SplitRulesFile = z.strictObject({
  version: z.literal(1),
  rules: z.array(
    z.union([
      z.strictObject({ domain: SplitDomain, via: z.enum(SPLIT_VIAS) }),
      z.strictObject({ app: SplitAppPath, via: z.enum(SPLIT_VIAS) }),
    ]),
  ),
});

/** The rules with `rule` in (one for the same domain or program replaced): domains, then programs. */
export function withSplitRule(rules: readonly SplitRule[], rule: SplitRule): SplitRule[] {
  const key = splitRuleTarget(rule);
  const order = (r: SplitRule) => `${isDomainRule(r) ? 0 : 1} ${splitRuleTarget(r)}`;
  return [...rules.filter((r) => splitRuleTarget(r) !== key), rule].sort((a, b) =>
    order(a).localeCompare(order(b)),
  );
}

/** The rules without the one for `target`; none for it: split-rule-not-found, naming those there are. */
export function withoutSplitRule(
  rules: readonly SplitRule[],
  target: SplitRuleTarget,
): SplitRule[] {
  const key = splitRuleTarget(target);
  if (!rules.some((r) => splitRuleTarget(r) === key)) {
    throw new FerryError(
      'split-rule-not-found',
      `no split rule for ${key}` +
        (rules.length ? `; the rules are for ${rules.map(splitRuleTarget).join(', ')}` : ''),
    );
  }
  return rules.filter((r) => splitRuleTarget(r) !== key);
}

export class SplitRuleStore {
  readonly file: string;
  readonly #serial = new SerialQueue();
  /** The rules as last read or written: the resolver asks for them on every query. */
  #rules: SplitRule[] | null = null;

  constructor(readonly stateDir: string = DEFAULT_STATE_DIR) {
    this.file = path.join(stateDir, SPLIT_RULES_FILE);
  }

  list(): Promise<SplitRule[]> {
    return this.#serial.run(() => this.read());
  }

  /** Adds a rule; one for the same domain or program is replaced (its `via` changes). */
  add(rule: SplitRule): Promise<SplitRule> {
    return this.#serial.run(async () => {
      await this.write(withSplitRule(await this.read(), rule));
      return rule;
    });
  }

  remove(target: SplitRuleTarget): Promise<void> {
    return this.#serial.run(async () => {
      await this.write(withoutSplitRule(await this.read(), target));
    });
  }

  private async read(): Promise<SplitRule[]> {
    this.#rules ??= (await readStateFile(this.file, SplitRulesFile, 'split rules'))?.rules ?? [];
    return this.#rules;
  }

  private async write(rules: SplitRule[]): Promise<void> {
    await writeStateFile(this.stateDir, this.file, { version: 1, rules }, 'split rules');
    this.#rules = rules;
  }
}
