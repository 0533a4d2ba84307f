// The control plane's client: one typed method per route of the control route table, for the
// engine, the relay, the test kit and the benchmarks (fetch, address and token injected).
import { API_PREFIXES, controlRoutes, type ControlRoutes, type RouteId } from './control-routes.js';
import {
  apiRoot,
  createRouteClient,
  routeUrl,
  type RouteClient,
  type RouteClientOptions,
  type RoutePayload,
} from './route-client.js';

export type ControlClient = RouteClient<ControlRoutes>;

/**
 * A client of the control plane at `baseUrl` (bare, or ending in /api/v1 or /v1), e.g.
 * `createControlClient({ baseUrl, fetch, token: () => deviceToken }).connect({ body: {} })`.
 */
export function createControlClient(options: RouteClientOptions): ControlClient {
  return createRouteClient(controlRoutes, API_PREFIXES, options);
}

/** The URL of one route, for tools that send requests themselves (load generators). */
export function controlRouteUrl<K extends RouteId>(
  baseUrl: string,
  id: K,
  input?: Pick<RoutePayload<ControlRoutes[K]>, 'params' | 'query'>,
): string {
  return routeUrl(apiRoot(baseUrl, API_PREFIXES), controlRoutes[id], input as never);
}
