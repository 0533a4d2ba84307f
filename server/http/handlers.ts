// The handler table: one plain function per route id, taking parsed input, returning a Result.
import type { z } from 'zod';
import type {
  ControlDiagnostics,
  ControlRoutes,
  RouteDef,
  RouteId,
} from '../../contracts/index.js';
import { ok, type Result } from '../domain/errors.js';
import { PLANS, planOf, planView } from '../domain/plans.js';
import type { Domain } from '../domain/services.js';
import type { DeviceAuth } from '../domain/ports/devices.js';
import type { NodeRow } from '../domain/ports/regions.js';
import type { RelayLists } from '../domain/relay-list.js';

/** What the handlers call: the domain's services, the version and the diagnostics' settings. */
export interface Services extends Pick<
  Domain,
  'accounts' | 'devices' | 'deviceTunnels' | 'deviceConfigs' | 'inventory' | 'connections' | 'feed'
> {
  version: string;
  /** The signed relay list (GET /relay-list). */
  relayLists: Pick<RelayLists, 'signed'>;
  /** What clients' diagnostics use (ferry-server --dns-leak-zone, --ipv6-probe). */
  diagnostics: ControlDiagnostics;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;
type AuthOf<A> = A extends 'device' ? DeviceAuth : A extends 'node' ? NodeRow : undefined;

export interface HandlerInput<R extends RouteDef> {
  body: Parsed<R['body']>;
  query: Parsed<R['query']>;
  params: Parsed<R['params']>;
  auth: AuthOf<R['auth']>;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
  /** The request's source address: for answering it only, never stored or logged (design.md, no-logs). */
  clientAddress: string;
}

type Output<R extends RouteDef> = R['response'] extends z.ZodType ? z.input<R['response']> : void;

export type Handler<R extends RouteDef> = (input: HandlerInput<R>) => Promise<Result<Output<R>>>;

export type HandlerTable = {
  [K in Exclude<RouteId, 'events'>]: Handler<ControlRoutes[K]>;
};

export function buildHandlers(s: Services): HandlerTable {
  return {
    health: async () => ok({ status: 'ok', version: s.version, api: 'v1' }),
    relayList: async () => ok(await s.relayLists.signed()),
    whoami: async ({ clientAddress }) => ok({ ip: clientAddress }),
    diagnostics: async () => ok({ ...s.diagnostics }),
    listPlans: async () => {
      const regions = (await s.inventory.listRegionRows()).map((r) => r.id);
      return ok({ plans: PLANS.map((p) => planView(p, regions)) });
    },
    createAccount: ({ body }) => s.accounts.createAccount(body.password),
    createSession: ({ body }) => s.accounts.signIn(body),
    getAccount: async ({ auth }) => ok(await s.accounts.describe(auth)),
    listDevices: async ({ auth }) =>
      ok({ devices: await s.connections.withLiveState(await s.devices.list(auth)) }),
    addDevice: ({ auth, body }) => s.accounts.addDevice(auth, body),
    getDevice: ({ auth, params }) => s.devices.get(auth, params.id),
    renameDevice: ({ auth, params, body }) => s.devices.rename(auth, params.id, body.name),
    revokeDevice: ({ auth, params }) => s.devices.revoke(auth, params.id),
    rotateKeys: ({ auth, params, body }) => s.devices.rotateKeys(auth, params.id, body),
    deviceStatus: async ({ auth, params }) => {
      const found = await s.devices.get(auth, params.id);
      if (!found.ok) return found;
      return ok(await s.connections.statusOf(params.id));
    },
    wireguardConfig: ({ auth, params, body }) => s.deviceConfigs.wireguard(auth, params.id, body),
    createTunnel: ({ auth, params, body }) => s.deviceTunnels.create(auth, params.id, body),
    listTunnels: ({ auth, params }) => s.deviceTunnels.list(auth, params.id),
    deleteTunnel: ({ auth, params }) => s.deviceTunnels.remove(auth, params.id, params.tag),
    listRegions: async ({ auth }) =>
      ok({ regions: await s.inventory.listRegions(planOf(auth.plan)) }),
    listNodes: async ({ query }) => ok({ nodes: await s.inventory.listNodes(query.region) }),
    // The answer carries what a client would otherwise ask for in calls of their own: the
    // address it connects from (its exit check before the tunnel) and the nodes to measure.
    connect: async ({ auth, body, clientAddress }) => {
      const answer = await s.connections.connect(auth, body);
      if (!answer.ok) return answer;
      return ok({
        ...answer.value,
        client_ip: clientAddress,
        ...(body.probe_nodes ? { probe_nodes: await probeNodes(s, auth) } : {}),
      });
    },
    status: async ({ auth }) => ok(await s.connections.status(auth)),
    reportLatency: async ({ auth, body, clientAddress }) =>
      ok({
        ...(await s.connections.reportLatency(auth, body.latency_ms, body.session_id)),
        client_ip: clientAddress,
      }),
    disconnect: async ({ auth }) => {
      await s.connections.disconnect(auth);
      return ok({ status: 'disconnected' as const });
    },
    adminCreateRegion: ({ body }) => s.inventory.createRegion(body),
    adminUpdateRegion: ({ params, body }) => s.inventory.updateRegion(params.id, body),
    adminCreateNode: ({ body }) => s.inventory.createNode(body),
    adminCheckPlatforms: async ({ params }) => {
      const asked = await s.inventory.requestPlatformCheck(params.id);
      if (!asked.ok) return asked;
      return ok({ node_id: params.id, requested: true as const, within_seconds: asked.value });
    },
    adminSetPlan: ({ params, body }) => s.accounts.setPlan(params.number, body.plan),
    nodeRegister: ({ auth, body }) =>
      s.inventory.register(
        auth,
        body.wireguard_public_key,
        body.ferry_public_key ?? null,
        body.probe_port ?? null,
        body.tls_port != null && body.tls_server_name != null
          ? { port: body.tls_port, serverName: body.tls_server_name }
          : null,
      ),
    nodeHeartbeat: ({ auth, body }) => s.inventory.heartbeat(auth, body),
    nodePeers: async ({ auth, query, signal }) =>
      ok(await s.feed.read(auth.region_id, query.after, query.wait, signal)),
  };
}

/**
 * What a client measures for smart routing: the healthy nodes with a probe responder in the
 * regions the device's plan allows (what it would get from GET /regions and GET /nodes).
 */
async function probeNodes(s: Services, auth: DeviceAuth) {
  const [regions, nodes] = await Promise.all([
    s.inventory.listRegions(planOf(auth.plan)),
    s.inventory.listNodes(undefined),
  ]);
  const allowed = new Set(regions.filter((r) => r.allowed).map((r) => r.id));
  return nodes
    .filter((n) => n.healthy && n.probe !== null && allowed.has(n.region))
    .map(({ id, region, endpoint_host, probe }) => ({ id, region, endpoint_host, probe }));
}
