// The control API's route table: one object drives the server's handlers, the OpenAPI
// document and every client.
import { z } from 'zod';
import * as api from './control-api.js';

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
}

function route<const R extends RouteDef>(r: R): R {
  return r;
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
  }),
  createSession: route({
    method: 'POST',
    path: '/sessions',
    auth: 'none',
    status: 201,
    summary: 'Sign a device in; 409 device-limit when the plan is full',
    body: api.CreateSessionRequest,
    response: api.CreateSessionResponse,
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
  getDevice: route({
    method: 'GET',
    path: '/devices/:id',
    auth: 'device',
    status: 200,
    summary: 'One device of the account',
    params: api.DeviceParams,
    response: api.Device,
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
  }),
  revokeDevice: route({
    method: 'DELETE',
    path: '/devices/:id',
    auth: 'device',
    status: 204,
    summary: 'Revoke a device: its token and its peers on every node are gone',
    params: api.DeviceParams,
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
  }),
  wireguardConfig: route({
    method: 'POST',
    path: '/devices/:id/wireguard-config',
    auth: 'device',
    status: 200,
    summary:
      "A wg-quick config and QR code for one of the account's devices (phones, official apps)",
    params: api.DeviceParams,
    body: api.WireguardConfigRequest,
    response: api.WireguardConfigResponse,
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
    summary: 'Pick a node (smart routing) and start a session',
    body: api.ConnectRequest,
    response: api.ConnectResponse,
  }),
  status: route({
    method: 'GET',
    path: '/status',
    auth: 'device',
    status: 200,
    summary: "The device's connection status",
    response: api.StatusResponse,
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
    summary: 'Server-sent events: `status` and `keys`',
    stream: 'text/event-stream',
  }),
  adminCreateRegion: route({
    method: 'POST',
    path: '/admin/regions',
    auth: 'admin',
    status: 201,
    summary: 'Add a region',
    body: api.CreateRegionRequest,
    response: api.RegionRecord,
  }),
  adminCreateNode: route({
    method: 'POST',
    path: '/admin/nodes',
    auth: 'admin',
    status: 201,
    summary: 'Add a node and issue its token',
    body: api.CreateNodeRequest,
    response: api.CreateNodeResponse,
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
  }),
  nodeRegister: route({
    method: 'POST',
    path: '/node/register',
    auth: 'node',
    status: 200,
    summary: "Publish the node's public keys",
    body: api.RegisterNodeRequest,
    response: api.RegisterNodeResponse,
  }),
  nodeHeartbeat: route({
    method: 'POST',
    path: '/node/heartbeat',
    auth: 'node',
    status: 200,
    summary: 'Health, load, fresh handshakes and usage',
    body: api.HeartbeatRequest,
    response: api.HeartbeatResponse,
  }),
  nodePeers: route({
    method: 'GET',
    path: '/node/peers',
    auth: 'node',
    status: 200,
    summary: 'Long-poll the versioned peer feed (snapshot when behind)',
    query: api.PeersQuery,
    response: api.PeersResponse,
  }),
} as const satisfies Record<string, RouteDef>;

export type ControlRoutes = typeof controlRoutes;
export type RouteId = keyof ControlRoutes;
