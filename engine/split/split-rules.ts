// The split rules by domain (`netcli split add|list|remove`), kept in `<stateDir>/split-rules.json`
// and read by the engine's resolver, which sends each rule's names its way.
import path from 'node:path';
import { z } from 'zod';

import { SPLIT_VIAS, SplitDomain, type SplitRule } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { DEFAULT_STATE_DIR, readStateFile, writeStateFile } from '../state-dir.js';
import { SerialQueue } from '../serial-queue.js';

export const SPLIT_RULES_FILE = 'split-rules.json';

const SplitRulesFile = z.strictObject({
  version: z.literal(1),
  rules: z.array(z.strictObject({ domain: SplitDomain, via: z.enum(SPLIT_VIAS) })),
});

/** The rules with `rule` in (one for the same domain replaced), sorted by domain. */
export function withSplitRule(rules: readonly SplitRule[], rule: SplitRule): SplitRule[] {
  return [...rules.filter((r) => r.domain !== rule.domain), rule].sort((a, b) =>
    a.domain.localeCompare(b.domain),
  );
}

/** The rules without the one for `domain`; none for it: rule-not-found, naming those there are. */
export function withoutSplitRule(rules: readonly SplitRule[], domain: string): SplitRule[] {
  if (!rules.some((r) => r.domain === domain)) {
    throw new FerryError(
      'rule-not-found',
      `no split rule for ${domain}` +
        (rules.length ? `; the rules are for ${rules.map((r) => r.domain).join(', ')}` : ''),
    );
  }
  return rules.filter((r) => r.domain !== domain);
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

  /** Adds a rule; one for the same domain is replaced (its `via` changes). */
  add(rule: SplitRule): Promise<SplitRule> {
    return this.#serial.run(async () => {
      await this.write(withSplitRule(await this.read(), rule));
      return rule;
    });
  }

  remove(domain: string): Promise<void> {
    return this.#serial.run(async () => {
      await this.write(withoutSplitRule(await this.read(), domain));
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
