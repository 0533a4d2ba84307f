// Removing what a crashed engine left behind (wireguard-go processes, tunnel links, the full
// tunnel's routes and rules, dead UAPI sockets), so that a crash never blocks the next start.
// What counts as ours is decided by pure selectors over what the OS shows; tunnels this manager
// holds are never touched.
import { UapiError, UAPI_GET_REQUEST as GET_REQUEST } from '../../platform/os/uapi-text.js';
import type { LinkInfo, Links, PolicyRule, Route, Routes } from '../os/effects.js';
import { FERRY_ROUTE_TABLE, isTunnelInterfaceName } from './names.js';
import { isOurRule } from './routing.js';
import type { WireguardProcessInfo, WireguardSystem } from '../../platform/os/wireguard-go.js';

/** The tunnels the manager holds right now: their names, and whether one is a full tunnel. */
export interface HeldTunnels {
  names: ReadonlySet<string>;
  fullTunnel: boolean;
}

const leftover = (name: string, held: HeldTunnels) =>
  isTunnelInterfaceName(name) && !held.names.has(name);

/** wireguard-go processes (of this network namespace) serving one of our names, not held. */
export function leftoverProcesses(
  processes: readonly WireguardProcessInfo[],
  held: HeldTunnels,
): WireguardProcessInfo[] {
  return processes.filter((p) => leftover(p.interfaceName, held));
}

export function leftoverLinks(links: readonly LinkInfo[], held: HeldTunnels): string[] {
  return links.map((l) => l.name).filter((n) => leftover(n, held));
}

/** Routes in our table that no held tunnel made (the table is ours alone). */
export function leftoverTableRoutes(routes: readonly Route[], held: HeldTunnels): Route[] {
  return routes.filter((r) => r.dev === undefined || !held.names.has(r.dev));
}

/** Our policy rules, unless a held full tunnel needs them. */
export function leftoverRules(rules: readonly PolicyRule[], held: HeldTunnels): PolicyRule[] {
  return held.fullTunnel ? [] : rules.filter(isOurRule);
}

/** Socket files of our names, not held: removed when nobody serves them any more. */
export function leftoverSockets(names: readonly string[], held: HeldTunnels): string[] {
  return names.filter((n) => leftover(n, held));
}

export interface CleanupDeps {
  links: Links;
  routes: Routes;
  wireguard: WireguardSystem;
}

/**
 * Removes every leftover, in the order that leaves nothing dangling: processes (they would
 * recreate nothing, but hold their links), links (their routes go with them), what remains in our
 * table, our rules, then sockets nobody serves. A socket someone still serves belongs to a tunnel
 * of another network namespace and stays. Tries every item; rejects with the first failure.
 */
export async function removeLeftovers(deps: CleanupDeps, held: HeldTunnels): Promise<void> {
  const { links, routes, wireguard } = deps;
  let first: unknown;
  const attempt = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      first ??= e;
    }
  };

  await attempt(async () => {
    for (const p of leftoverProcesses(await wireguard.processes(), held))
      await attempt(() => wireguard.kill(p.pid));
  });
  await attempt(async () => {
    for (const name of leftoverLinks(await links.list(), held))
      await attempt(() => links.delete(name));
  });
  for (const family of [4, 6] as const) {
    await attempt(async () => {
      const inTable = await routes.list(FERRY_ROUTE_TABLE, family);
      for (const r of leftoverTableRoutes(inTable, held))
        await attempt(() => routes.delete({ ...r, table: FERRY_ROUTE_TABLE }));
    });
  }
  await attempt(async () => {
    for (const rule of leftoverRules(await routes.listRules(4), held))
      await attempt(() => routes.deleteRule(rule));
  });
  await attempt(async () => {
    for (const name of leftoverSockets(await wireguard.sockets(), held)) {
      const served = await wireguard.exchange(name, GET_REQUEST, 2_000).then(
        () => true,
        (e: unknown) => !(e instanceof UapiError && e.errno === 'ECONNREFUSED'),
      );
      if (!served) await attempt(() => wireguard.removeSocket(name));
    }
  });
  if (first !== undefined) throw first;
}
