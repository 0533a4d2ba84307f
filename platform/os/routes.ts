// Routes and policy-routing rules: the seam the engine steers traffic through, and its Linux
// implementation with `ip`.
import {
  addressFamily,
  checkInteger,
  checkInterfaceName,
  prefixFamily,
  type Family,
} from './arguments.js';
import { checkOutput, runCommand, type CommandRunner } from './command.js';

/** A routing table: `main`, or a number of the engine's own (1..2^32-1, not 253..255). */
export type RouteTable = 'main' | number;

export interface Route {
  /** A prefix: `0.0.0.0/0` and `::/0` for the default routes; a bare address is a host route. */
  destination: string;
  /** unicast (default) sends through `dev`/`via`; blackhole drops; throw falls to the next rule. */
  type?: 'unicast' | 'blackhole' | 'unreachable' | 'throw';
  dev?: string;
  via?: string;
  table?: RouteTable;
  metric?: number;
  /** The source address for traffic this route sends. */
  src?: string;
}

/**
 * A policy-routing rule in the style of wg-quick: packets with (or without: `notFwmark`) a
 * mark, or to a prefix (`to`), look up `table`; `suppressPrefixLength` ignores routes of that
 * prefix length or less there (0: the table's default route).
 */
export interface PolicyRule {
  family: Family;
  priority: number;
  /** Only packets to this prefix (`addr/len`, of the rule's family). */
  to?: string;
  table: RouteTable;
  fwmark?: number;
  fwmask?: number;
  notFwmark?: boolean;
  suppressPrefixLength?: number;
}

/**
 * The routes and rules the engine adds and removes. Deleting a route or rule that is gone
 * succeeds. Failures are FerryError os-command-failed; bad arguments (a bug) are TypeErrors.
 */
export interface Routes {
  /** Adds a route; fails when the same route exists. */
  add(route: Route): Promise<void>;
  /** Adds a route or changes the one with the same destination, table and metric. */
  replace(route: Route): Promise<void>;
  delete(route: Route): Promise<void>;
  /** The routes of one table and family (default routes as 0.0.0.0/0 and ::/0). */
  list(table: RouteTable, family: Family): Promise<Route[]>;
  addRule(rule: PolicyRule): Promise<void>;
  deleteRule(rule: PolicyRule): Promise<void>;
  listRules(family: Family): Promise<PolicyRule[]>;
}

function checkTable(t: RouteTable): string {
  if (t === 'main') return 'main';
  checkInteger(t, 1, 0xffffffff, 'a routing table');
  if (t >= 253 && t <= 255) throw new TypeError('tables 253-255 are the kernel’s own');
  return String(t);
}

function routeFamily(r: Route): Family {
  const family = prefixFamily(r.destination, 'route destination');
  if (r.type && r.type !== 'unicast' && (r.dev !== undefined || r.via !== undefined))
    throw new TypeError(`a ${r.type} route has no device or gateway`);
  if (r.via !== undefined && addressFamily(r.via, 'gateway') !== family)
    throw new TypeError('the gateway is not of the destination’s family');
  if (r.src !== undefined && addressFamily(r.src, 'source address') !== family)
    throw new TypeError('the source address is not of the destination’s family');
  return family;
}

/** The argv after `ip -N route <verb>`: the route's selector and attributes. */
function routeArgs(r: Route): string[] {
  const args: string[] = [];
  if (r.type && r.type !== 'unicast') args.push(r.type);
  args.push(r.destination);
  if (r.via !== undefined) args.push('via', r.via);
  if (r.dev !== undefined) args.push('dev', checkInterfaceName(r.dev));
  if (r.table !== undefined) args.push('table', checkTable(r.table));
  if (r.metric !== undefined)
    args.push('metric', String(checkInteger(r.metric, 0, 0xffffffff, 'a metric')));
  if (r.src !== undefined) args.push('src', r.src);
  return args;
}

function ruleArgs(r: PolicyRule): string[] {
  const args = ['priority', String(checkInteger(r.priority, 1, 32765, 'a rule priority'))];
  if (r.to !== undefined) {
    if (prefixFamily(r.to, 'rule destination') !== r.family)
      throw new TypeError('the rule destination is not of the rule’s family');
    args.push('to', r.to);
  }
  if (r.fwmark !== undefined) {
    const mark = checkInteger(r.fwmark, 0, 0xffffffff, 'a firewall mark');
    const mask =
      r.fwmask === undefined
        ? ''
        : `/0x${checkInteger(r.fwmask, 0, 0xffffffff, 'a mark mask').toString(16)}`;
    if (r.notFwmark) args.push('not');
    args.push('fwmark', `0x${mark.toString(16)}${mask}`);
  } else if (r.notFwmark || r.fwmask !== undefined) {
    throw new TypeError('notFwmark and fwmask need a fwmark');
  }
  args.push('table', checkTable(r.table));
  if (r.suppressPrefixLength !== undefined) {
    const max = r.family === 4 ? 32 : 128;
    args.push(
      'suppress_prefixlength',
      String(checkInteger(r.suppressPrefixLength, 0, max, 'a suppressed prefix length')),
    );
  }
  return args;
}

interface IpRoute {
  type?: string;
  dst: string;
  gateway?: string;
  dev?: string;
  metric?: number;
  prefsrc?: string;
}

interface IpRule {
  priority: number;
  /** The destination prefix's address, and its length unless it is a host's. */
  dst?: string;
  dstlen?: number;
  not?: null;
  fwmark?: string;
  fwmask?: string;
  table?: string;
  suppress_prefixlen?: number;
}

function toTable(t: string | undefined): RouteTable {
  return t === undefined || t === 'main' ? 'main' : Number(t);
}

function toRoute(r: IpRoute, family: Family, table: RouteTable): Route {
  const all = family === 4 ? '0.0.0.0/0' : '::/0';
  const host = family === 4 ? '/32' : '/128';
  const route: Route = {
    destination: r.dst === 'default' ? all : r.dst.includes('/') ? r.dst : `${r.dst}${host}`,
    type: (r.type as Route['type']) ?? 'unicast',
    table,
  };
  if (r.dev !== undefined) route.dev = r.dev;
  if (r.gateway !== undefined) route.via = r.gateway;
  if (r.metric !== undefined) route.metric = r.metric;
  if (r.prefsrc !== undefined) route.src = r.prefsrc;
  return route;
}

function toRule(r: IpRule, family: Family): PolicyRule {
  const rule: PolicyRule = { family, priority: r.priority, table: toTable(r.table) };
  if (r.dst !== undefined && r.dst !== 'all')
    rule.to = `${r.dst}/${r.dstlen ?? (family === 4 ? 32 : 128)}`;
  if (r.fwmark !== undefined) rule.fwmark = Number(r.fwmark);
  if (r.fwmask !== undefined) rule.fwmask = Number(r.fwmask);
  if ('not' in r) rule.notFwmark = true;
  if (r.suppress_prefixlen !== undefined) rule.suppressPrefixLength = r.suppress_prefixlen;
  return rule;
}

/** `ip` (iproute2). The runner is the seam: tests record argv or run it inside a namespace. */
export class LinuxRoutes implements Routes {
  constructor(private readonly run: CommandRunner = runCommand) {}

  async add(route: Route): Promise<void> {
    await this.routeCommand('add', route, 'add a route');
  }

  async replace(route: Route): Promise<void> {
    await this.routeCommand('replace', route, 'replace a route');
  }

  async delete(route: Route): Promise<void> {
    const family = routeFamily(route);
    const out = await this.run('ip', [`-${family}`, 'route', 'delete', ...routeArgs(route)]);
    // ESRCH: no such route (already gone).
    if (out.exitCode !== 0 && /No such process/.test(out.stderr)) return;
    checkOutput(out, 'ip', 'delete a route');
  }

  async list(table: RouteTable, family: Family): Promise<Route[]> {
    const out = await this.run('ip', [
      `-${family}`,
      '-j',
      'route',
      'show',
      'table',
      checkTable(table),
    ]);
    // The kernel forgets a table with its last route, and `ip route show table N` then fails:
    // a table that does not exist holds no routes.
    if (out.exitCode !== 0 && /table does not exist/i.test(out.stderr)) return [];
    checkOutput(out, 'ip', 'list routes');
    return (JSON.parse(out.stdout) as IpRoute[]).map((r) => toRoute(r, family, table));
  }

  async addRule(rule: PolicyRule): Promise<void> {
    const out = await this.run('ip', [`-${rule.family}`, 'rule', 'add', ...ruleArgs(rule)]);
    checkOutput(out, 'ip', 'add a routing rule');
  }

  async deleteRule(rule: PolicyRule): Promise<void> {
    const out = await this.run('ip', [`-${rule.family}`, 'rule', 'delete', ...ruleArgs(rule)]);
    // ENOENT: no such rule (already gone).
    if (out.exitCode !== 0 && /No such file or directory/.test(out.stderr)) return;
    checkOutput(out, 'ip', 'delete a routing rule');
  }

  async listRules(family: Family): Promise<PolicyRule[]> {
    const out = await this.run('ip', [`-${family}`, '-j', 'rule', 'show']);
    checkOutput(out, 'ip', 'list routing rules');
    return (JSON.parse(out.stdout) as IpRule[]).map((r) => toRule(r, family));
  }

  private async routeCommand(verb: 'add' | 'replace', route: Route, what: string): Promise<void> {
    const family = routeFamily(route);
    checkOutput(
      await this.run('ip', [`-${family}`, 'route', verb, ...routeArgs(route)]),
      'ip',
      what,
    );
  }
}
