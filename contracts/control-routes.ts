// The control API's route table: one object drives the server's handlers, the OpenAPI
// document and every client.
import { z } from 'zod';
import * as api from './control-api.js';
import { ControlDiagnostics } from './diagnostics.js';
import { SignedRelayList } from './relay-list.js';
import type { ErrorCode } from './problem.js';

export type Auth = 'none' | 'device' | 'node' | 'admin';

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: Auth;
  summary: string;
  status: number;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Absent for routes that answer with an empty body (204) or a stream. */
  response?: z.ZodType;
  stream?: 'text/event-stream';
  /**
   * The most bytes of an answer's body a client reads, when this route's answers may be larger
   * than the default (route-client.ts's MAX_ANSWER_BYTES).
   */
  maxAnswerBytes?: number;
  /** A stream's events: each name it sends, with the schema of its (JSON) data. */
  events?: Readonly<Record<string, z.ZodType>>;
  /**
   * How long a client waits for this route's answer (a stream's: until it begins), when that
   * is longer than the client's default (route-client.ts's DEFAULT_TIMEOUT_MS): the route waits
   * for a tunnel, probes or checks. One number per route, so that every client waits alike.
   */
  timeoutMs?: number;
  /**
   * The error codes this route's own logic answers with. Those every route of its kind can
   * give (a bad token, a malformed body, rate limits, ...) are added by `routeErrorCodes`.
   */
  errors?: readonly ErrorCode[];
}

function route<const R extends RouteDef>(r: R): R {
  return r;
}

const CONNECT_ERRORS = [
  'forbidden',
  'region-not-in-plan',
  'data-cap-reached',
  'no-node-available',
] as const satisfies readonly ErrorCode[];

/** Methods whose requests carry a body the server reads (and may refuse). */
export const BODY_METHODS: ReadonlySet<RouteDef['method']> = new Set([
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/**
 * Every error code a route can answer with: its own, and those that come with what it is
 * (authenticated, with path parameters, a query, a body) and with HTTP itself.
 */
export function routeErrorCodes(def: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    // Any request: a malformed request line or header, a slow or oversized header block, an
    // Expect other than 100-continue, rate limits, a bug, shutting down.
    'bad-request',
    'request-timeout',
    'headers-too-large',
    'expectation-failed',
    'rate-limited',
    'internal',
    'unavailable',
  ]);
  if (def.auth !== 'none') codes.add('unauthorized');
  if (def.params) codes.add('uri-too-long');
  if (def.params || def.query || def.body) codes.add('validation-failed');
  if (BODY_METHODS.has(def.method)) {
    for (const c of [
      'invalid-json',
      'payload-too-large',
      'unsupported-media-type',
      'unsupported-content-encoding',
    ] as const)
      codes.add(c);
  }
  for (const c of def.errors ?? []) codes.add(c);
  return [...codes];
}

/** Every route is served under both prefixes; neither is deprecated. */
export const API_PREFIXES = ['/api/v1', '/v1'] as const;

export const controlRoutes = {
  health: route({
    method: 'GET',
    path: '/health',
    auth: 'none',
    status: 200,
    summary: 'Liveness and version',
    response: api.HealthResponse,
  }),
  relayList: route({
    method: 'GET',
    path: '/relay-list',
    auth: 'none',
    status: 200,
    summary:
      "The relays' public facts, signed by the service's Ed25519 key (a client keeps the last good list for when the service is out of reach)",
    response: SignedRelayList,
  }),
  whoami: route({
    method: 'GET',
    path: '/ip',
    auth: 'none',
    status: 200,
    summary:
      'The address this request came from, as the service sees it (an exit-address check: never stored or logged)',
    response: api.IpResponse,
  }),
  diagnostics: route({
    method: 'GET',
    path: '/diagnostics',
    auth: 'none',
    status: 200,
    summary:
      "What clients' diagnostics use: a DNS leak-test zone (its authority answers with the asking resolver's address) and a TCP service reachable over IPv6",
    response: ControlDiagnostics,
  }),
  listPlans: route({
    method: 'GET',
    path: '/plans',
    auth: 'none',
    status: 200,
    summary: 'Plans and their limits',
    response: api.PlansResponse,
  }),
  createAccount: route({
    method: 'POST',
    path: '/accounts',
    auth: 'none',
    status: 201,
    summary: 'Create an account on the free plan',
    body: api.CreateAccountRequest,
    response: api.CreateAccountResponse,
    errors: ['unavailable'],
  }),
  createSession: route({
    method: 'POST',
    path: '/sessions',
    auth: 'none',
    status: 201,
    summary: 'Sign a device in; 409 device-limit when the plan is full',
    body: api.CreateSessionRequest,
    response: api.CreateSessionResponse,
    errors: ['invalid-credentials', 'device-limit', 'key-in-use'],
  }),
  getAccount: route({
    method: 'GET',
    path: '/account',
    auth: 'device',
    status: 200,
    summary: 'Plan, limits and usage this period',
    response: api.AccountResponse,
  }),
  listDevices: route({
    method: 'GET',
    path: '/devices',
    auth: 'device',
    status: 200,
    summary: "The account's devices",
    response: api.DevicesResponse,
  }),
  addDevice: route({
    method: 'POST',
    path: '/devices',
    auth: 'device',
    status: 201,
    summary:
      'Add a device to the account with the public keys of key pairs made on the adding device (a phone or tablet on the official WireGuard app, set up from a laptop: POST /devices/:id/wireguard-config then renders its config). The new device gets no token: it never calls the API. 409 device-limit when the plan is full',
    body: api.AddDeviceRequest,
    response: api.Device,
    errors: ['device-limit', 'key-in-use'],
  }),
  getDevice: route({
    method: 'GET',
    path: '/devices/:id',
    auth: 'device',
    status: 200,
    summary: 'One device of the account',
    params: api.DeviceParams,
    response: api.Device,
    errors: ['not-found'],
  }),
  renameDevice: route({
    method: 'PATCH',
    path: '/devices/:id',
    auth: 'device',
    status: 200,
    summary: 'Rename a device',
    params: api.DeviceParams,
    body: api.RenameDeviceRequest,
    response: api.Device,
    errors: ['not-found'],
  }),
  revokeDevice: route({
    method: 'DELETE',
    path: '/devices/:id',
    auth: 'device',
    status: 204,
    summary: 'Revoke a device: its token and its peers on every node are gone',
    params: api.DeviceParams,
    errors: ['not-found'],
  }),
  rotateKeys: route({
    method: 'PUT',
    path: '/devices/:id/keys',
    auth: 'device',
    status: 200,
    summary: "Rotate a device's public keys",
    params: api.DeviceParams,
    body: api.RotateKeysRequest,
    response: api.Device,
    errors: ['not-found', 'key-in-use'],
  }),
  deviceStatus: route({
    method: 'GET',
    path: '/devices/:id/status',
    auth: 'device',
    status: 200,
    summary:
      "The connection status of one of the account's devices, as GET /status shows a device its own (a phone on the official app has no token to ask with)",
    params: api.DeviceParams,
    response: api.StatusResponse,
    errors: ['not-found'],
  }),
  wireguardConfig: route({
    method: 'POST',
    path: '/devices/:id/wireguard-config',
    auth: 'device',
    status: 200,
    summary:
      "A wg-quick config for one of the account's devices (phones and tablets on the official WireGuard apps), starting its session. Without its private key: a request with `private_key` is refused (400); the device that made the key pair fills it in where the placeholder line is, and draws the QR code",
    params: api.DeviceParams,
    body: api.WireguardConfigRequest,
    response: api.WireguardConfigResponse,
    errors: ['not-found', ...CONNECT_ERRORS],
  }),
  createTunnel: route({
    method: 'POST',
    path: '/devices/:id/tunnels',
    auth: 'device',
    status: 201,
    summary:
      'Register a tunnel of a device besides its own (a service tunnel): its own keys, its own stable tunnel addresses and its own session, not a device slot; at most 8 per device (409 tunnel-limit), one per tag (409 tunnel-exists). It goes with its device',
    params: api.DeviceParams,
    body: api.CreateTunnelRequest,
    response: api.DeviceTunnel,
    errors: ['not-found', 'key-in-use', 'tunnel-limit', 'tunnel-exists'],
  }),
  listTunnels: route({
    method: 'GET',
    path: '/devices/:id/tunnels',
    auth: 'device',
    status: 200,
    summary: "A device's tunnels",
    params: api.DeviceParams,
    response: api.DeviceTunnelsResponse,
    errors: ['not-found'],
  }),
  deleteTunnel: route({
    method: 'DELETE',
    path: '/devices/:id/tunnels/:tag',
    auth: 'device',
    status: 204,
    summary: 'Remove one tunnel of a device: its session ends and its peers leave every node',
    params: api.DeviceTunnelParams,
    errors: ['not-found'],
  }),
  listRegions: route({
    method: 'GET',
    path: '/regions',
    auth: 'device',
    status: 200,
    summary: 'Regions, their load and whether the plan allows them',
    response: api.RegionsResponse,
  }),
  listNodes: route({
    method: 'GET',
    path: '/nodes',
    auth: 'device',
    status: 200,
    summary: 'Nodes, optionally of one region',
    query: api.NodesQuery,
    response: api.NodesResponse,
  }),
  connect: route({
    method: 'POST',
    path: '/connect',
    auth: 'device',
    status: 200,
    summary:
      "Pick a node (smart routing) and start a session: the device's own, or with `tunnel` one of its tunnels' (404 not-found for a tag it has not registered). With `platform` (stream mode) only nodes recently verified for that platform are candidates: 409 platform-unverified when the region has nodes but none is verified for it",
    body: api.ConnectRequest,
    response: api.ConnectResponse,
    errors: [...CONNECT_ERRORS, 'not-found', 'platform-unverified'],
  }),
  status: route({
    method: 'GET',
    path: '/status',
    auth: 'device',
    status: 200,
    summary: "The device's connection status",
    response: api.StatusResponse,
  }),
  reportLatency: route({
    method: 'PUT',
    path: '/status/latency',
    auth: 'device',
    status: 200,
    summary:
      "Report the client's own latency to its node; GET /status shows it (over the node's measurement) for 30 s. Without a session, or for an old one, nothing changes: the answer is the status either way, with the address the report came from (the client's check-in through its tunnel: its exit address)",
    body: api.ReportLatencyRequest,
    response: api.ReportLatencyResponse,
  }),
  disconnect: route({
    method: 'POST',
    path: '/disconnect',
    auth: 'device',
    status: 200,
    summary: 'End the current session',
    response: api.DisconnectResponse,
  }),
  events: route({
    method: 'GET',
    path: '/events',
    auth: 'device',
    status: 200,
    summary: 'Server-sent events: `status`, `keys` and `revoked`',
    stream: 'text/event-stream',
    events: { status: api.StatusResponse, keys: api.Device, revoked: api.RevokedEvent },
  }),
  adminCreateRegion: route({
    method: 'POST',
    path: '/admin/regions',
    auth: 'admin',
    status: 201,
    summary: 'Add a region',
    body: api.CreateRegionRequest,
    response: api.RegionRecord,
    errors: ['region-exists'],
  }),
  adminUpdateRegion: route({
    method: 'PATCH',
    path: '/admin/regions/:id',
    auth: 'admin',
    status: 200,
    summary: 'Rename a region, or offer (or withdraw) its relays as multihop entries',
    params: api.RegionParams,
    body: api.UpdateRegionRequest,
    response: api.RegionRecord,
    errors: ['not-found'],
  }),
  adminCreateNode: route({
    method: 'POST',
    path: '/admin/nodes',
    auth: 'admin',
    status: 201,
    summary: 'Add a node and issue its token',
    body: api.CreateNodeRequest,
    response: api.CreateNodeResponse,
    errors: [],
  }),
  adminCheckPlatforms: route({
    method: 'POST',
    path: '/admin/nodes/:id/check-platforms',
    auth: 'admin',
    status: 202,
    summary:
      'Ask a node to check every streaming platform now: its next heartbeat answer tells it, and the heartbeat after its checks carries the results',
    params: api.NodeParams,
    response: api.CheckPlatformsResponse,
    errors: ['not-found'],
  }),
  adminSetPlan: route({
    method: 'PUT',
    path: '/admin/accounts/:number/plan',
    auth: 'admin',
    status: 200,
    summary: "Change an account's plan",
    params: api.AccountNumberParams,
    body: api.SetPlanRequest,
    response: api.SetPlanResponse,
    errors: ['not-found'],
  }),
  nodeRegister: route({
    method: 'POST',
    path: '/node/register',
    auth: 'node',
    status: 200,
    summary: "Publish the node's public keys",
    body: api.RegisterNodeRequest,
    response: api.RegisterNodeResponse,
    errors: ['key-in-use'],
  }),
  nodeHeartbeat: route({
    method: 'POST',
    path: '/node/heartbeat',
    auth: 'node',
    status: 200,
    summary:
      "Health, load, fresh handshakes, usage, and the node's latest streaming-platform checks",
    body: api.HeartbeatRequest,
    response: api.HeartbeatResponse,
    errors: ['node-not-registered'],
  }),
  nodePeers: route({
    method: 'GET',
    path: '/node/peers',
    auth: 'node',
    status: 200,
    summary: 'Long-poll the versioned peer feed (snapshot when behind)',
    query: api.PeersQuery,
    response: api.PeersResponse,
    // A snapshot holds every peer of the region: 100,000 are at most about 32 MiB of JSON.
    maxAnswerBytes: 64 * 1024 * 1024,
  }),
} as const satisfies Record<string, RouteDef>;

export type ControlRoutes = typeof controlRoutes;
export type RouteId = keyof ControlRoutes;
