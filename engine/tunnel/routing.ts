// What a tunnel changes in the OS routing (its link's addresses and MTU, its routes, the full
// tunnel's policy rules), worked out from the plan as plain data, then applied step by step with
// each step's undo remembered, so that close and a failed up() remove exactly what was made.
import { isIP } from 'node:net';

import type { Links, PolicyRule, Route, Routes } from '../os/effects.js';
import { FerryError } from '../errors.js';
import { LAN_RANGES } from '../protection/lan.js';
import {
  FERRY_FWMARK,
  FERRY_ROUTE_TABLE,
  SUPPRESS_RULE_PRIORITY,
  TUNNEL_RULE_PRIORITY,
} from './names.js';
import type { TunnelPlan } from './tunnel.js';

/** One change to the OS, in the order it is made. */
export type RoutingStep =
  | { kind: 'address'; prefix: string }
  | { kind: 'mtu'; mtu: number }
  | { kind: 'up' }
  | { kind: 'route'; route: Route };

export interface RoutingPlan {
  /** Link and route steps of this tunnel alone. */
  steps: RoutingStep[];
  /** The full tunnel needs the shared policy rules (fullTunnelRules) while it is up. */
  fullTunnel: boolean;
}

/**
 * The full tunnel's rules (IPv4), after wg-quick's: main's specific routes first, but only for
 * the LAN ranges (LAN_RANGES: the LAN, a container's bridge, link-local), then everything
 * unmarked into FERRY_ROUTE_TABLE, whose default route is the tunnel. wg-quick lets main's
 * specific routes win for every destination (`suppress_prefixlength 0` alone), and so a link's
 * on-link route for a public prefix too: a rogue DHCP lease of a /15 then sends the foreign
 * addresses in it around the tunnel (TunnelCrack's LocalNet). The tunnel's own sockets carry
 * FERRY_FWMARK and so take main's routes to the node (the fall-through to main's own rule); the
 * split tunnel's marked packets reach main by their rule (SPLIT_RULE_PRIORITY); a service
 * tunnel's routes are also in FERRY_ROUTE_TABLE (see routingPlan).
 */
export function fullTunnelRules(): PolicyRule[] {
  return [
    ...LAN_RANGES.v4.map((to): PolicyRule => ({
      family: 4,
      priority: SUPPRESS_RULE_PRIORITY,
      to,
      table: 'main',
      suppressPrefixLength: 0,
    })),
    {
      family: 4,
      priority: TUNNEL_RULE_PRIORITY,
      table: FERRY_ROUTE_TABLE,
      fwmark: FERRY_FWMARK,
      notFwmark: true,
    },
  ];
}

/**
 * Whether a rule is one of fullTunnelRules, or was one in an earlier version (wg-quick's rule
 * for every destination): a leftover of ours when found at start.
 */
export function isOurRule(rule: PolicyRule): boolean {
  if (rule.family !== 4) return false;
  if (rule.priority === TUNNEL_RULE_PRIORITY) return rule.table === FERRY_ROUTE_TABLE;
  return (
    rule.priority === SUPPRESS_RULE_PRIORITY &&
    rule.table === 'main' &&
    rule.suppressPrefixLength === 0
  );
}

const sameRule = (a: PolicyRule, b: PolicyRule) =>
  a.priority === b.priority && a.to === b.to && a.table === b.table;

/**
 * The steps of one tunnel. `configureLink`: the link's addresses, MTU and state are ours to set
 * (wireguard-go's TUN); the data plane sets its own. Ferry carries IPv4 only, so an IPv6
 * destination for it is refused (not-supported) rather than routed into a link without IPv6.
 */
export function routingPlan(
  plan: Pick<TunnelPlan, 'answer' | 'routes' | 'interfaceName'>,
  configureLink: boolean,
): RoutingPlan {
  const dev = plan.interfaceName;
  const { tunnel, protocol } = plan.answer;
  const cidrs = plan.routes.kind === 'only' ? plan.routes.cidrs : [];
  const v6 = cidrs.some((c) => isIP(c.split('/')[0] ?? '') === 6);
  if (v6 && protocol === 'ferry')
    throw new FerryError('not-supported', 'the Ferry protocol carries IPv4 only so far');

  const steps: RoutingStep[] = [];
  if (configureLink) {
    steps.push({ kind: 'address', prefix: `${tunnel.ipv4}/32` });
    // IPv6 only where a route needs it: a host with IPv6 switched off still gets its IPv4 tunnel.
    if (v6) steps.push({ kind: 'address', prefix: `${tunnel.ipv6}/128` });
    steps.push({ kind: 'mtu', mtu: tunnel.mtu }, { kind: 'up' });
  }
  if (plan.routes.kind === 'all') {
    steps.push({
      kind: 'route',
      route: { destination: '0.0.0.0/0', dev, table: FERRY_ROUTE_TABLE },
    });
  } else {
    for (const destination of cidrs) {
      steps.push({ kind: 'route', route: { destination, dev, table: 'main' } });
      // While a full tunnel is up, main's routes count for the LAN ranges only: the service's
      // IPv4 routes go beside the full tunnel's default route too, where they win over it.
      if (isIP(destination.split('/')[0] ?? '') === 4)
        steps.push({ kind: 'route', route: { destination, dev, table: FERRY_ROUTE_TABLE } });
    }
  }
  return { steps, fullTunnel: plan.routes.kind === 'all' };
}

type Os = { links: Links; routes: Routes };

/**
 * Applies steps in order and remembers how to take each back. A failed step takes back the ones
 * before it and rethrows; undo() takes back everything still standing, in reverse order, and may
 * be called again after a failure (it retries what is left).
 */
export class AppliedRouting {
  private readonly undos: (() => Promise<void>)[] = [];

  private constructor(private readonly os: Os) {}

  static async apply(os: Os, dev: string, steps: readonly RoutingStep[]): Promise<AppliedRouting> {
    const applied = new AppliedRouting(os);
    try {
      for (const step of steps) await applied.step(dev, step);
    } catch (e) {
      await applied.undo().catch(() => {});
      throw e;
    }
    return applied;
  }

  private async step(dev: string, step: RoutingStep): Promise<void> {
    const { links, routes } = this.os;
    switch (step.kind) {
      case 'address':
        await links.setAddress(dev, step.prefix);
        // The link itself goes with the tunnel; its addresses go with it.
        return;
      case 'mtu':
        await links.setMtu(dev, step.mtu);
        return;
      case 'up':
        await links.setUp(dev, true);
        return;
      case 'route': {
        // A default route in our own table is ours alone: replace takes over from a full tunnel
        // still closing (its delete names its device, so it cannot remove ours). Any other route
        // must not steal another's destination: add refuses.
        const isDefault = step.route.destination === '0.0.0.0/0';
        if (step.route.table === FERRY_ROUTE_TABLE && isDefault) await routes.replace(step.route);
        else await routes.add(step.route);
        const route = step.route;
        this.undos.push(async () => {
          // The kernel drops a device's routes with it; `ip route delete ... dev` of a device that
          // is gone fails, so only a link that still exists has routes to remove.
          if (route.dev !== undefined && (await links.get(route.dev)) === null) return;
          await routes.delete(route);
        });
        return;
      }
    }
  }

  /** Takes back every step still standing; rejects with the first failure after trying all. */
  async undo(): Promise<void> {
    let first: unknown;
    const failed: (() => Promise<void>)[] = [];
    while (this.undos.length) {
      const u = this.undos.pop()!;
      try {
        await u();
      } catch (e) {
        first ??= e;
        failed.unshift(u);
      }
    }
    this.undos.push(...failed);
    if (first !== undefined) throw first;
  }
}

/**
 * Adds the full tunnel's rules that are missing (they are shared by every full tunnel), and
 * removes rules of ours that are not among them (an earlier version's, left by a crash).
 */
export async function ensureFullTunnelRules(routes: Routes): Promise<void> {
  const want = fullTunnelRules();
  const have = (await routes.listRules(4)).filter(isOurRule);
  for (const rule of have.filter((r) => !want.some((w) => sameRule(w, r))))
    await routes.deleteRule(rule);
  for (const rule of want) {
    if (!have.some((r) => sameRule(r, rule))) await routes.addRule(rule);
  }
}

/** Removes the full tunnel's rules (and any leftover of ours at their priorities). */
export async function removeFullTunnelRules(routes: Routes): Promise<void> {
  const have = (await routes.listRules(4)).filter(isOurRule);
  for (const rule of [...fullTunnelRules(), ...have]) await routes.deleteRule(rule);
}
