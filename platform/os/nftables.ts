// nftables tables (the engine's kill switch and split tunnel, the relay's NAT and isolation):
// the seam, and its Linux implementation through `nft -j -f`, one atomic transaction per change.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { checkOutput, runCommand, type CommandRunner } from './command.js';

export interface NftTable {
  family: 'inet' | 'ip' | 'ip6';
  name: string;
}

/**
 * One object of a table in nftables' JSON form, without `family` and `table` (the firewall
 * adds them, so a body cannot reach outside its table): `{ chain: {name, type, hook, prio,
 * policy} }`, `{ set: {name, type, flags, elem} }`, `{ rule: {chain, expr} }`, ...
 */
export type NftObject = { [kind: string]: Record<string, unknown> };

/**
 * One change inside a table, confined to it as a body is: an object added (a chain, set or rule;
 * `{ element: {name, elem} }` adds elements to a set) or deleted (elements, a set, a chain).
 */
export type NftChange = { add: NftObject } | { delete: NftObject };

/**
 * The nftables tables of one program. `apply` replaces a whole table in one transaction: the
 * old rules stay in force until the new ones are, and a refused body leaves the old table as it
 * was (the kill switch is never missing, not even for a moment). Failures are FerryError
 * os-command-failed; a body or change that would reach outside its table is a TypeError.
 */
export interface Firewall {
  apply(table: NftTable, body: readonly NftObject[]): Promise<void>;
  /**
   * Changes an existing table in place, all changes in one transaction (a table that grows
   * piece by piece: the relay's tunnel interfaces and rate tiers). Fails, changing nothing, when
   * the table or a set it names is missing, or an element to delete is not there.
   */
  patch(table: NftTable, changes: readonly NftChange[]): Promise<void>;
  /**
   * Adds elements (`{ element: {name, elem} }`) to sets that `apply` declared without elements
   * of their own, with a timeout each (addresses that come and go): the table stays what apply
   * made, so that the next apply keeps those sets as they are. Adding an element again renews
   * its timeout. Fails, changing nothing, when the table or a set is missing.
   */
  addElements(table: NftTable, elements: readonly NftObject[]): Promise<void>;
  /** Removes the table; a table that is gone is not an error. */
  remove(table: NftTable): Promise<void>;
  /** Whether the table exists (a restart reconciles what a crash left). */
  exists(table: NftTable): Promise<boolean>;
  /** What the table holds now, as the kernel has it (null: no such table); for diagnostics. */
  inspect(table: NftTable): Promise<NftTableView | null>;
}

/** A table's chains and sets as they are in force: enough to tell a complete kill switch. */
export interface NftTableView {
  chains: {
    name: string;
    /** null: a regular chain (jumped to, no hook of its own). */
    hook: string | null;
    policy: string | null;
    rules: number;
    /** The last rule's expressions (its verdict last), null for a chain without rules. */
    lastRule: readonly unknown[] | null;
  }[];
  sets: { name: string; elements: number }[];
}

/**
 * The view of a table from its objects: a body as applied, or what `nft -j list table` printed
 * (objects of other tables and kinds are left out).
 */
export function tableView(objects: readonly NftObject[]): NftTableView {
  const chains: NftTableView['chains'] = [];
  const sets: NftTableView['sets'] = [];
  const rules = new Map<string, unknown[][]>();
  for (const o of objects) {
    if ('chain' in o) {
      const c = o.chain as { name: string; hook?: string; policy?: string };
      chains.push({
        name: c.name,
        hook: c.hook ?? null,
        policy: c.policy ?? null,
        rules: 0,
        lastRule: null,
      });
    } else if ('set' in o) {
      const s = o.set as { name: string; elem?: unknown[] };
      sets.push({ name: s.name, elements: s.elem?.length ?? 0 });
    } else if ('rule' in o) {
      const r = o.rule as { chain: string; expr?: unknown[] };
      rules.set(r.chain, [...(rules.get(r.chain) ?? []), r.expr ?? []]);
    }
  }
  for (const c of chains) {
    const list = rules.get(c.name) ?? [];
    c.rules = list.length;
    c.lastRule = list.at(-1) ?? null;
  }
  return { chains, sets };
}

const TABLE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

function checkTable(t: NftTable): NftTable {
  if (!['inet', 'ip', 'ip6'].includes(t.family) || !TABLE_NAME.test(t.name))
    throw new TypeError(`not a usable nftables table: ${JSON.stringify(t)}`);
  return { family: t.family, name: t.name };
}

/** An object of the table as nft wants it: its one kind, with the table's family and name. */
function inTableObject(t: NftTable, o: NftObject): Record<string, unknown> {
  const kinds = Object.keys(o);
  if (kinds.length !== 1 || kinds[0] === 'table')
    throw new TypeError('each body object is one chain, set, map, rule or element');
  const kind = kinds[0]!;
  return { [kind]: { ...o[kind], family: t.family, table: t.name } };
}

/** The transaction that makes `table` exactly `body`. */
export function replaceTableCommands(
  table: NftTable,
  body: readonly NftObject[],
): Record<string, unknown>[] {
  const t = checkTable(table);
  const inTable = body.map((o) => ({ add: inTableObject(t, o) }));
  return [
    // `add` first so that `delete` never fails on a missing table; all in one transaction.
    { add: { table: t } },
    { delete: { table: t } },
    { add: { table: t } },
    ...inTable,
  ];
}

/** The transaction of a patch: each change confined to the table. */
export function patchTableCommands(
  table: NftTable,
  changes: readonly NftChange[],
): Record<string, unknown>[] {
  const t = checkTable(table);
  return changes.map((c) => {
    const verbs = Object.keys(c);
    if (verbs.length !== 1 || (verbs[0] !== 'add' && verbs[0] !== 'delete'))
      throw new TypeError('each change is one add or delete');
    return 'add' in c ? { add: inTableObject(t, c.add) } : { delete: inTableObject(t, c.delete) };
  });
}

/** The commands of Firewall.addElements: element objects only, each confined to the table. */
export function addElementCommands(
  table: NftTable,
  elements: readonly NftObject[],
): Record<string, unknown>[] {
  for (const e of elements)
    if (Object.keys(e).length !== 1 || !('element' in e))
      throw new TypeError('addElements takes element objects only');
  return patchTableCommands(
    table,
    elements.map((add) => ({ add })),
  );
}

/** What a table holds after a transaction: its chains, and each set's contents by fingerprint. */
export interface AppliedTable {
  chains: string[];
  sets: Map<string, string>;
}

const nameOf = (o: NftObject, kind: string) => (o[kind] as { name?: unknown }).name as string;

/** The chains and sets of a body, each set with a fingerprint of everything it holds. */
export function appliedTable(body: readonly NftObject[]): AppliedTable {
  const chains: string[] = [];
  const sets = new Map<string, string>();
  for (const o of body) {
    if ('chain' in o) chains.push(nameOf(o, 'chain'));
    else if ('set' in o)
      sets.set(nameOf(o, 'set'), createHash('sha256').update(JSON.stringify(o.set)).digest('hex'));
  }
  return { chains, sets };
}

/**
 * The transaction that makes a table holding `previous` exactly `body`, without sending again the
 * sets that have not changed (a country's ranges are megabytes of JSON, and most changes are of
 * a rule or two): every rule goes (`flush table` keeps chains, sets and their elements), then the
 * old chains and the changed sets, then the new ones come. Still one transaction: nothing is
 * ever missing in between.
 */
export function updateTableCommands(
  table: NftTable,
  previous: AppliedTable,
  body: readonly NftObject[],
): Record<string, unknown>[] {
  const t = checkTable(table);
  const next = appliedTable(body);
  const kept = new Set(
    [...next.sets].filter(([name, print]) => previous.sets.get(name) === print).map(([n]) => n),
  );
  const inTable = (kind: string, name: string) => ({
    [kind]: { family: t.family, table: t.name, name },
  });
  const full = replaceTableCommands(table, body);
  return [
    { add: { table: t } },
    { flush: { table: t } },
    ...previous.chains.map((name) => ({ delete: inTable('chain', name) })),
    ...[...previous.sets.keys()]
      .filter((n) => !kept.has(n))
      .map((name) => ({ delete: inTable('set', name) })),
    // The body's objects, less the sets kept as they are.
    ...full.slice(3).filter((c) => {
      const set = (c.add as { set?: { name: string } }).set;
      return !(set && kept.has(set.name));
    }),
  ];
}

/**
 * `nft -j -f FILE`: nft cannot read a pipe from Node as stdin (Node's pipes are sockets), so
 * each batch goes through a file in a private temp directory, removed afterwards.
 */
export class NftFirewall implements Firewall {
  /** What this process last put in each table; a table it did not make is replaced whole. */
  readonly #applied = new Map<string, AppliedTable>();

  constructor(private readonly run: CommandRunner = runCommand) {}

  async apply(table: NftTable, body: readonly NftObject[]): Promise<void> {
    const key = `${table.family} ${table.name}`;
    const previous = this.#applied.get(key);
    const what = `apply the ${table.name} firewall table`;
    this.#applied.delete(key);
    if (previous) {
      try {
        await this.transaction(updateTableCommands(table, previous, body), what);
        this.#applied.set(key, appliedTable(body));
        return;
      } catch {
        // Changed behind our back (nft flush ruleset, another program): replaced whole below.
      }
    }
    await this.transaction(replaceTableCommands(table, body), what);
    this.#applied.set(key, appliedTable(body));
  }

  async patch(table: NftTable, changes: readonly NftChange[]): Promise<void> {
    const commands = patchTableCommands(table, changes);
    // The table is no longer what apply last made: the next apply replaces it whole.
    this.#applied.delete(`${table.family} ${table.name}`);
    if (commands.length > 0)
      await this.transaction(commands, `change the ${table.name} firewall table`);
  }

  async addElements(table: NftTable, elements: readonly NftObject[]): Promise<void> {
    const commands = addElementCommands(table, elements);
    if (commands.length > 0)
      await this.transaction(commands, `add addresses to the ${table.name} firewall table`);
  }

  async remove(table: NftTable): Promise<void> {
    const t = checkTable(table);
    this.#applied.delete(`${t.family} ${t.name}`);
    await this.transaction(
      [{ add: { table: t } }, { delete: { table: t } }],
      `remove the ${t.name} firewall table`,
    );
  }

  async exists(table: NftTable): Promise<boolean> {
    const t = checkTable(table);
    const out = await this.run('nft', ['-j', 'list', 'tables']);
    checkOutput(out, 'nft', 'list the firewall tables');
    const listed = (JSON.parse(out.stdout) as { nftables: { table?: NftTable }[] }).nftables;
    return listed.some((o) => o.table?.family === t.family && o.table.name === t.name);
  }

  async inspect(table: NftTable): Promise<NftTableView | null> {
    const t = checkTable(table);
    const out = await this.run('nft', ['-j', 'list', 'table', t.family, t.name]);
    if (out.exitCode !== 0 && /No such file or directory/.test(out.stderr)) return null;
    checkOutput(out, 'nft', `list the ${t.name} firewall table`);
    const listed = (JSON.parse(out.stdout) as { nftables: NftObject[] }).nftables;
    return tableView(
      listed.filter((o) => {
        const kind = Object.keys(o)[0]!;
        const inner = o[kind] as { family?: string; table?: string };
        return inner.family === t.family && inner.table === t.name;
      }),
    );
  }

  private async transaction(commands: Record<string, unknown>[], what: string): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'ferry-nft-'));
    try {
      const file = path.join(dir, 'batch.json');
      await writeFile(file, JSON.stringify({ nftables: commands }), { mode: 0o600 });
      checkOutput(await this.run('nft', ['-j', '-f', file]), 'nft', what);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
