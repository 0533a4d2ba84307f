// In-memory fakes of the OS seams for the engine's unit tests: the same argument checks and
// the same idempotence as the Linux implementations, one journal of every call in order, and
// failures injected on demand.
import { FerryError } from '../errors.js';
import {
  addressFamily,
  checkInteger,
  checkInterfaceName,
  prefixFamily,
  type Family,
} from './arguments.js';
import type { OsEffects } from './effects.js';
import {
  replaceTableCommands,
  tableView,
  type Firewall,
  type NftObject,
  type NftTable,
  type NftTableView,
} from './firewall.js';
import type { LinkInfo, LinkKind, Links } from './links.js';
import type { Resolver } from './resolver.js';
import type { PolicyRule, Route, RouteTable, Routes } from './routes.js';
import type { Sysctl } from './sysctl.js';

export type Seam = 'links' | 'routes' | 'firewall' | 'resolver' | 'sysctl';

export interface JournalEntry {
  seam: Seam;
  op: string;
  args: unknown[];
}

/** Every call made through the fakes of one bundle, in order (failed calls included). */
export class Journal {
  readonly entries: JournalEntry[] = [];

  record(seam: Seam, op: string, args: unknown[]): void {
    this.entries.push({ seam, op, args: structuredClone(args) });
  }

  /** `seam.op` of each call, e.g. ['firewall.apply', 'links.setUp']. */
  ops(): string[] {
    return this.entries.map((e) => `${e.seam}.${e.op}`);
  }
}

/** One-shot failures by operation name, shared by the fakes' base. */
class Faults {
  private readonly pending = new Map<string, FerryError>();

  /** Makes the next call of `op` fail with `error` (default: os-command-failed). */
  failNext(op: string, error?: FerryError): void {
    this.pending.set(
      op,
      error ?? new FerryError('os-command-failed', `could not ${op}: injected failure`),
    );
  }

  take(op: string): void {
    const e = this.pending.get(op);
    if (!e) return;
    this.pending.delete(op);
    throw e;
  }
}

function refused(what: string, why: string): FerryError {
  return new FerryError('os-command-failed', `could not ${what}: ${why}`);
}

function hostPrefix(prefix: string): string {
  return prefix.includes('/') ? prefix : `${prefix}/${addressFamily(prefix) === 4 ? 32 : 128}`;
}

export class FakeLinks extends Faults implements Links {
  readonly links = new Map<string, LinkInfo>();
  /** Told when a link goes down or away (the kernel drops the routes through it). */
  readonly onDown: ((name: string) => void)[] = [];

  constructor(private readonly journal = new Journal()) {
    super();
  }

  /** A link someone else made (the data plane's TUN, wireguard-go's), as the OS would show it. */
  addExisting(name: string, kind: string | null = 'tun', mtu = 1500): void {
    this.links.set(name, { name, kind, mtu, up: false, addresses: [] });
  }

  async create(name: string, kind: LinkKind): Promise<void> {
    this.begin('create', [name, kind]);
    checkInterfaceName(name);
    if (this.links.has(name)) throw refused(`create the ${kind} link ${name}`, 'File exists');
    this.links.set(name, {
      name,
      kind,
      mtu: kind === 'wireguard' ? 1420 : 1500,
      up: false,
      addresses: [],
    });
  }

  async delete(name: string): Promise<void> {
    this.begin('delete', [name]);
    if (this.links.delete(checkInterfaceName(name))) for (const f of this.onDown) f(name);
  }

  async setAddress(name: string, prefix: string): Promise<void> {
    this.begin('setAddress', [name, prefix]);
    prefixFamily(prefix, 'link address');
    const link = this.need(name, `set an address on ${name}`);
    const p = hostPrefix(prefix);
    if (!link.addresses.includes(p)) link.addresses.push(p);
  }

  async removeAddress(name: string, prefix: string): Promise<void> {
    this.begin('removeAddress', [name, prefix]);
    prefixFamily(prefix, 'link address');
    const link = this.need(name, `remove an address from ${name}`);
    link.addresses = link.addresses.filter((a) => a !== hostPrefix(prefix));
  }

  async setMtu(name: string, mtu: number): Promise<void> {
    this.begin('setMtu', [name, mtu]);
    checkInteger(mtu, 576, 65535, 'the MTU');
    this.need(name, `set the MTU of ${name}`).mtu = mtu;
  }

  async setUp(name: string, up: boolean): Promise<void> {
    this.begin('setUp', [name, up]);
    const link = this.need(name, `bring ${name} ${up ? 'up' : 'down'}`);
    const wasUp = link.up;
    link.up = up;
    if (wasUp && !up) for (const f of this.onDown) f(name);
  }

  async get(name: string): Promise<LinkInfo | null> {
    this.begin('get', [name]);
    const l = this.links.get(checkInterfaceName(name));
    return l ? structuredClone(l) : null;
  }

  async list(): Promise<LinkInfo[]> {
    this.begin('list', []);
    return [...this.links.values()].map((l) => structuredClone(l));
  }

  private begin(op: string, args: unknown[]): void {
    this.journal.record('links', op, args);
    this.take(op);
  }

  private need(name: string, what: string): LinkInfo {
    const l = this.links.get(checkInterfaceName(name));
    if (!l) throw refused(what, `Cannot find device "${name}"`);
    return l;
  }
}

function familyOf(r: Route): Family {
  return prefixFamily(r.destination, 'route destination');
}

/** The kernel's identity of a route: table, destination and metric (default 0, IPv6 1024). */
function routeKey(r: Route): string {
  const f = familyOf(r);
  return `${f}|${r.table ?? 'main'}|${hostPrefix(r.destination)}|${r.metric ?? (f === 4 ? 0 : 1024)}`;
}

function normalRoute(r: Route): Route {
  const f = familyOf(r);
  if (r.via !== undefined && addressFamily(r.via, 'gateway') !== f)
    throw new TypeError('the gateway is not of the destination’s family');
  if (r.dev !== undefined) checkInterfaceName(r.dev);
  if (r.type && r.type !== 'unicast' && (r.dev !== undefined || r.via !== undefined))
    throw new TypeError(`a ${r.type} route has no device or gateway`);
  return {
    ...r,
    destination: hostPrefix(r.destination),
    type: r.type ?? 'unicast',
    table: r.table ?? 'main',
    metric: r.metric ?? (f === 4 ? 0 : 1024),
  };
}

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const to = (r: PolicyRule) => (r.to === undefined ? undefined : hostPrefix(r.to));
  return (
    a.family === b.family &&
    a.priority === b.priority &&
    to(a) === to(b) &&
    a.table === b.table &&
    a.fwmark === b.fwmark &&
    a.fwmask === b.fwmask &&
    !!a.notFwmark === !!b.notFwmark &&
    a.suppressPrefixLength === b.suppressPrefixLength
  );
}

/**
 * Routes and rules. Given the FakeLinks of the same bundle it behaves as the kernel does with
 * devices: a route needs its device to exist and be up, and goes when the device goes down.
 */
export class FakeRoutes extends Faults implements Routes {
  readonly routes = new Map<string, Route>();
  readonly rules: PolicyRule[] = [];

  constructor(
    private readonly journal = new Journal(),
    private readonly links?: FakeLinks,
  ) {
    super();
    links?.onDown.push((name) => {
      for (const [key, r] of this.routes) if (r.dev === name) this.routes.delete(key);
    });
  }

  async add(route: Route): Promise<void> {
    this.begin('add', [route]);
    const r = this.usable(normalRoute(route), 'add a route');
    if (this.routes.has(routeKey(r))) throw refused('add a route', 'File exists');
    this.routes.set(routeKey(r), r);
  }

  async replace(route: Route): Promise<void> {
    this.begin('replace', [route]);
    const r = this.usable(normalRoute(route), 'replace a route');
    this.routes.set(routeKey(r), r);
  }

  private usable(r: Route, what: string): Route {
    if (!this.links || r.dev === undefined) return r;
    const link = this.links.links.get(r.dev);
    if (!link) throw refused(what, `Cannot find device "${r.dev}"`);
    if (!link.up) throw refused(what, 'Device for nexthop is not up.');
    return r;
  }

  async delete(route: Route): Promise<void> {
    this.begin('delete', [route]);
    const r = normalRoute(route);
    // Like the kernel: the selectors given must match; a metric not given matches any.
    for (const [key, have] of this.routes) {
      const matches =
        have.destination === r.destination &&
        have.table === r.table &&
        (route.metric === undefined || have.metric === r.metric) &&
        (route.dev === undefined || have.dev === r.dev) &&
        (route.via === undefined || have.via === r.via);
      if (matches) {
        this.routes.delete(key);
        return;
      }
    }
  }

  async list(table: RouteTable, family: Family): Promise<Route[]> {
    this.begin('list', [table, family]);
    return [...this.routes.values()]
      .filter((r) => r.table === table && familyOf(r) === family)
      .map((r) => structuredClone(r));
  }

  async addRule(rule: PolicyRule): Promise<void> {
    this.begin('addRule', [rule]);
    checkInteger(rule.priority, 1, 32765, 'a rule priority');
    if (rule.to !== undefined && prefixFamily(rule.to, 'rule destination') !== rule.family)
      throw new TypeError('the rule destination is not of the rule’s family');
    if (this.rules.some((r) => sameRule(r, rule)))
      throw refused('add a routing rule', 'File exists');
    this.rules.push({ ...rule });
  }

  async deleteRule(rule: PolicyRule): Promise<void> {
    this.begin('deleteRule', [rule]);
    const i = this.rules.findIndex((r) => sameRule(r, rule));
    if (i >= 0) this.rules.splice(i, 1);
  }

  async listRules(family: Family): Promise<PolicyRule[]> {
    this.begin('listRules', [family]);
    // In the kernel's order: by priority, then as added.
    return this.rules
      .filter((r) => r.family === family)
      .sort((x, y) => x.priority - y.priority)
      .map((r) => ({ ...r }));
  }

  private begin(op: string, args: unknown[]): void {
    this.journal.record('routes', op, args);
    this.take(op);
  }
}

export class FakeFirewall extends Faults implements Firewall {
  /** Each table's body as last applied, by `family name`. */
  readonly tables = new Map<string, NftObject[]>();

  constructor(private readonly journal = new Journal()) {
    super();
  }

  /** The body of a table, or undefined when it does not exist. */
  table(t: NftTable): NftObject[] | undefined {
    return this.tables.get(`${t.family} ${t.name}`);
  }

  async apply(table: NftTable, body: readonly NftObject[]): Promise<void> {
    this.journal.record('firewall', 'apply', [table, body]);
    replaceTableCommands(table, body); // the same argument checks
    this.take('apply');
    this.tables.set(`${table.family} ${table.name}`, structuredClone([...body]));
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

export class FakeResolver extends Faults implements Resolver {
  /** The servers in use while set; null when the system's own resolver is in place. */
  servers: string[] | null = null;
  interfaceName: string | null = null;

  constructor(private readonly journal = new Journal()) {
    super();
  }

  async set(servers: readonly string[], interfaceName: string): Promise<void> {
    this.journal.record('resolver', 'set', [servers, interfaceName]);
    for (const s of servers) addressFamily(s, 'resolver address');
    checkInterfaceName(interfaceName);
    this.take('set');
    this.servers = [...servers];
    this.interfaceName = interfaceName;
  }

  async restore(): Promise<void> {
    this.journal.record('resolver', 'restore', []);
    this.take('restore');
    this.servers = null;
    this.interfaceName = null;
  }
}

export class FakeSysctl extends Faults implements Sysctl {
  readonly values = new Map<string, string>();

  constructor(private readonly journal = new Journal()) {
    super();
  }

  async get(key: string): Promise<string> {
    this.journal.record('sysctl', 'get', [key]);
    this.take('get');
    return this.values.get(key) ?? '0';
  }

  async set(key: string, value: string): Promise<void> {
    this.journal.record('sysctl', 'set', [key, value]);
    this.take('set');
    this.values.set(key, value);
  }
}

export interface FakeOs extends OsEffects {
  links: FakeLinks;
  routes: FakeRoutes;
  firewall: FakeFirewall;
  resolver: FakeResolver;
  sysctl: FakeSysctl;
  journal: Journal;
}

/** A fresh set of fakes sharing one journal. */
export function createFakeOs(): FakeOs {
  const journal = new Journal();
  const links = new FakeLinks(journal);
  return {
    journal,
    links,
    routes: new FakeRoutes(journal, links),
    firewall: new FakeFirewall(journal),
    resolver: new FakeResolver(journal),
    sysctl: new FakeSysctl(journal),
  };
}
