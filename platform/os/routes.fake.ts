// An in-memory Routes for unit tests: the kernel's identity of routes and rules, the same
// argument checks and idempotence as LinuxRoutes (seams.contract.ts holds both to it), and,
// given the FakeLinks beside it, routes that need their device up and go when it goes down.
import {
  addressFamily,
  checkInteger,
  checkInterfaceName,
  prefixFamily,
  type Family,
} from './arguments.js';
import { Faults, hostPrefix, Journal, refused } from './journal.fake.js';
import type { FakeLinks } from './links.fake.js';
import type { PolicyRule, Route, RouteTable, Routes } from './routes.js';

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
