// Region rules (`netcli region add --area A --strategy S [--name N]`): named choices of where to
// connect, kept in `<stateDir>/rules.json`, and how a rule's name becomes the control plane's
// region choice `<area>:<strategy>`.
import path from 'node:path';
import { z } from 'zod';
import { REGION_STRATEGIES, type RegionRule } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { DEFAULT_STATE_DIR, readStateFile, writeStateFile } from '../state-dir.js';
import { SerialQueue } from '../serial-queue.js';

export const RULES_FILE = 'rules.json';

const RulesFile = z.strictObject({
  version: z.literal(1),
  rules: z.array(
    z.strictObject({
      name: z.string().regex(/^[a-z][a-z0-9-]{1,31}$/),
      area: z.string().regex(/^[a-z][a-z0-9-]{1,31}$/),
      strategy: z.enum(REGION_STRATEGIES),
    }),
  ),
});

/**
 * The control plane's region choice for what a user typed: a rule's name becomes
 * `<area>:<strategy>`; anything else (`auto`, a region id, `<area>[:strategy]`) is passed on
 * as it is, for the control plane to accept or refuse.
 */
export function resolveRegionChoice(choice: string, rules: readonly RegionRule[]): string {
  const typed = choice.toLowerCase();
  const rule = rules.find((r) => r.name === typed);
  return rule ? `${rule.area}:${rule.strategy}` : typed;
}

/**
 * The rule a user asked for, checked against the regions the control plane lists: its area is
 * one of theirs, its name (the area's unless given) no region's and not auto, for a rule must
 * never hide a region. Whether the name is taken is the store's to say (rule-exists).
 */
export function checkedRule(
  regions: readonly { id: string; area: string }[],
  request: { area: string; strategy: RegionRule['strategy']; name?: string | undefined },
): RegionRule {
  const areas = [...new Set(regions.map((r) => r.area))].sort();
  if (!areas.includes(request.area)) {
    throw new FerryError('config-invalid', `there is no area ${request.area}`, {
      errors: [{ field: 'area', message: `the areas are ${areas.join(', ')}`, allowed: areas }],
    });
  }
  const name = request.name ?? request.area;
  if (regions.some((r) => r.id === name) || name === 'auto') {
    throw new FerryError(
      'config-invalid',
      `${name} is a region's name: give the rule another --name`,
      {
        errors: [{ field: 'name', message: 'a rule cannot take the name of a region or auto' }],
      },
    );
  }
  return { name, area: request.area, strategy: request.strategy };
}

export class RuleStore {
  readonly file: string;
  readonly #serial = new SerialQueue();

  constructor(readonly stateDir: string = DEFAULT_STATE_DIR) {
    this.file = path.join(stateDir, RULES_FILE);
  }

  list(): Promise<RegionRule[]> {
    return this.#serial.run(() => this.read());
  }

  /** Adds a rule; a name already taken is refused (`rule-exists`), never overwritten. */
  add(rule: RegionRule): Promise<RegionRule> {
    return this.#serial.run(async () => {
      const rules = await this.read();
      if (rules.some((r) => r.name === rule.name)) {
        throw new FerryError(
          'rule-exists',
          `a region rule named ${rule.name} exists; remove it first or give --name`,
        );
      }
      await this.write([...rules, rule]);
      return rule;
    });
  }

  remove(name: string): Promise<void> {
    return this.#serial.run(async () => {
      const rules = await this.read();
      const typed = name.toLowerCase();
      if (!rules.some((r) => r.name === typed)) {
        throw new FerryError(
          'rule-not-found',
          `no region rule named ${typed}` +
            (rules.length ? `; the rules are ${rules.map((r) => r.name).join(', ')}` : ''),
        );
      }
      await this.write(rules.filter((r) => r.name !== typed));
    });
  }

  private async read(): Promise<RegionRule[]> {
    return (await readStateFile(this.file, RulesFile, 'region rules'))?.rules ?? [];
  }

  private async write(rules: RegionRule[]): Promise<void> {
    await writeStateFile(this.stateDir, this.file, { version: 1, rules }, 'region rules');
  }
}
