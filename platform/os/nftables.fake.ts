// An in-memory Firewall for unit tests: each table's objects as applied and patched (a set's
// elements kept in the set, as `nft list` shows them), the same confinement checks as
// NftFirewall, every call journaled, failures on demand. seams.contract.ts holds both to it.
import { Faults, Journal, refused } from './journal.fake.js';
import {
  addElementCommands,
  patchTableCommands,
  replaceTableCommands,
  tableView,
  type Firewall,
  type NftChange,
  type NftObject,
  type NftTable,
  type NftTableView,
} from './nftables.js';

type Named = { name?: unknown; elem?: unknown[] };

const inner = (o: NftObject): [string, Named] => {
  const kind = Object.keys(o)[0]!;
  return [kind, o[kind] as Named];
};
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A table's objects with `change` made, as nft makes it; throws as nft refuses. */
function patched(body: NftObject[], change: NftChange, what: string): NftObject[] {
  const adding = 'add' in change;
  const [kind, o] = inner(adding ? change.add : change.delete);
  const index = (k: string) =>
    body.findIndex((x) => inner(x)[0] === k && inner(x)[1].name === o.name);
  const missing = () => refused(what, 'No such file or directory');
  if (kind === 'element') {
    const i = index('set');
    if (i < 0) throw missing();
    const set = { ...(body[i]!.set as Named) };
    const have = [...(set.elem ?? [])];
    for (const e of o.elem ?? []) {
      const at = have.findIndex((h) => same(h, e));
      if (adding) {
        if (at < 0) have.push(e);
      } else {
        if (at < 0) throw missing();
        have.splice(at, 1);
      }
    }
    set.elem = have;
    return body.map((x, j) => (j === i ? { set } : x));
  }
  if (adding) {
    // Adding a chain or set that exists changes nothing; a rule is appended to its chain.
    if (kind === 'rule') {
      if (!body.some((x) => 'chain' in x && inner(x)[1].name === (o as { chain?: unknown }).chain))
        throw missing();
      return [...body, structuredClone({ [kind]: o })];
    }
    return index(kind) >= 0 ? body : [...body, structuredClone({ [kind]: o })];
  }
  if (kind === 'rule') throw new TypeError('rules are deleted with their table or chain');
  const i = index(kind);
  if (i < 0) throw missing();
  const rest = body.filter((_, j) => j !== i);
  // A chain goes with its rules.
  return kind === 'chain'
    ? rest.filter((x) => !('rule' in x && (x.rule as { chain?: unknown }).chain === o.name))
    : rest;
}

export class FakeFirewall extends Faults implements Firewall {
  /** Each table's objects as applied and patched since, by `family name`. */
  readonly tables = new Map<string, NftObject[]>();

  constructor(private readonly journal = new Journal()) {
    super();
  }

  /** The objects of a table, or undefined when it does not exist. */
  table(t: NftTable): NftObject[] | undefined {
    return this.tables.get(`${t.family} ${t.name}`);
  }

  /** The elements of a set of a table as they are now ([] for a set without any). */
  elements(t: NftTable, set: string): unknown[] {
    const o = this.table(t)?.find((x) => 'set' in x && (x.set as Named).name === set);
    if (!o) throw new Error(`no set ${set} in ${t.name}`);
    return [...((o.set as Named).elem ?? [])];
  }

  async apply(table: NftTable, body: readonly NftObject[]): Promise<void> {
    this.journal.record('firewall', 'apply', [table, body]);
    replaceTableCommands(table, body); // the same argument checks
    this.take('apply');
    let objects: NftObject[] = [];
    // Elements given beside their set end up in it, as nft lists them.
    for (const o of structuredClone([...body]))
      objects = 'element' in o ? patched(objects, { add: o }, 'apply') : [...objects, o];
    this.tables.set(`${table.family} ${table.name}`, objects);
  }

  async patch(table: NftTable, changes: readonly NftChange[]): Promise<void> {
    this.journal.record('firewall', 'patch', [table, changes]);
    patchTableCommands(table, changes); // the same argument checks
    this.take('patch');
    const what = `change the ${table.name} firewall table`;
    let body = this.table(table);
    if (!body) {
      if (changes.length === 0) return;
      throw refused(what, 'No such file or directory');
    }
    // All or nothing, as one transaction.
    for (const c of changes) body = patched(body, c, what);
    this.tables.set(`${table.family} ${table.name}`, body);
  }

  async addElements(table: NftTable, elements: readonly NftObject[]): Promise<void> {
    this.journal.record('firewall', 'addElements', [table, elements]);
    addElementCommands(table, elements); // the same argument checks
    this.take('addElements');
    const what = `add addresses to the ${table.name} firewall table`;
    let body = this.table(table);
    if (!body) {
      if (elements.length === 0) return;
      throw refused(what, 'No such file or directory');
    }
    for (const add of elements) body = patched(body, { add }, what);
    this.tables.set(`${table.family} ${table.name}`, body);
  }

  async remove(table: NftTable): Promise<void> {
    this.journal.record('firewall', 'remove', [table]);
    this.take('remove');
    this.tables.delete(`${table.family} ${table.name}`);
  }

  async exists(table: NftTable): Promise<boolean> {
    this.journal.record('firewall', 'exists', [table]);
    this.take('exists');
    return this.tables.has(`${table.family} ${table.name}`);
  }

  async inspect(table: NftTable): Promise<NftTableView | null> {
    this.journal.record('firewall', 'inspect', [table]);
    replaceTableCommands(table, []); // the same argument checks
    this.take('inspect');
    const body = this.tables.get(`${table.family} ${table.name}`);
    return body ? tableView(body) : null;
  }
}
