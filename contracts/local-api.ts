// The engine host's local API (HTTP over a unix socket): its route table and zod schemas. One
// table drives the host's handlers and every client (netcli, the desktop app's main process,
// the web graphical mode), the same way as the control API's (control-routes.ts).
import { z } from 'zod';
import {
  CONFIG_KEYS,
  ClientConfig,
  ClientConfigPatch,
  EntryRegionSetting,
  RegionSetting,
  ServiceCa,
  ServiceUrl,
} from './client-config.js';
import {
  AccountResponse,
  CreateAccountRequest,
  Device,
  DeviceName,
  DeviceParams,
  LatencyText,
  ListedDevice,
  Notice,
  Region,
  RenameDeviceRequest,
  ResolverAddress,
} from './control-api.js';
import { ServiceKey } from './api-access.js';
import type { RouteDef } from './control-routes.js';
import { DiagnosticsReport } from './diagnostics.js';
import {
  SplitExecRequest,
  SplitRule,
  SplitRuleQuery,
  SplitRuleRequest,
  SplitRulesResponse,
} from './split-rules.js';
import { StreamTestRequest, StreamTestResult } from './platforms.js';
import { TRANSPORTS, TransportReason } from './transports.js';
import { createRouteClient, type RouteClient, type RouteClientOptions } from './route-client.js';
import {
  AddDestinationSetRequest,
  DestinationSet,
  DestinationSetParams,
  ServiceTunnel,
  ServiceTunnelsResponse,
  DestinationSetsResponse,
  StartTunnelRequest,
  StopTunnelResponse,
  TunnelTagParams,
} from './service-tunnels.js';
import {
  ENCRYPTIONS,
  MODES,
  PROTOCOLS,
  REGION_STRATEGIES,
  TypedAccountNumber,
  USAGES,
  caseInsensitiveEnum,
  text,
} from './values.js';

/** The local API lives under one prefix (there is no second address form to keep). */
export const LOCAL_API_PREFIXES = ['/api/v1'] as const;
/** Where the engine host listens unless `--socket` or FERRY_SOCKET says otherwise. */
export const DEFAULT_ENGINE_SOCKET = '/run/ferry/engine.sock';
/**
 * The only Host a request may name (clients over the socket send it); anything else is a
 * browser led there by a web page (DNS rebinding, a forwarded socket) and is refused.
 */
export const LOCAL_API_HOST = 'ferry.local';
export const LOCAL_API_BASE_URL = `http://${LOCAL_API_HOST}`;

/** The engine's states (design.md: the state machine). */
export const ENGINE_STATES = [
  'disconnected',
  'connecting',
  'connected',
  'reconnecting',
  'disconnecting',
  'error',
] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

/** A tunnel address's owner never appears here: only the node's public facts. */
export const LocalNode = z.object({
  id: z.string(),
  region: z.string(),
  endpoint: z
    .string()
    .describe('host:port of the node, as the tunnel uses it (the entry’s, with multihop)'),
  entry: z
    .object({ id: z.string(), region: z.string() })
    .optional()
    .describe(
      'Multihop: the relay the tunnel enters at, which forwards it to this node; absent: none.',
    ),
});

export const LocalFailure = z.object({
  code: z.string().describe('A stable code (the engine’s or the control plane’s).'),
  message: z.string(),
});

/** What protects the connection, as it holds right now. */
export const ProtectionStatus = z
  .object({
    kill_switch: z
      .enum(['off', 'armed', 'active'])
      .describe(
        'off: the setting is off; armed: on, and holds from the next connect; active: traffic outside the tunnel is blocked now.',
      ),
    lockdown: z.boolean().describe('The kill switch holds while disconnected too.'),
    split: z
      .enum(['off', 'by-country', 'unavailable'])
      .describe(
        'by-country: only cross-border traffic goes through the tunnel; unavailable: split auto, but the home country is unknown, so everything does.',
      ),
    home_country: z.string().nullable(),
    dns: z
      .array(z.string())
      .describe('The resolvers the system uses through the tunnel (empty: its own, not ours).'),
  })
  .meta({ id: 'ProtectionStatus' });
export type ProtectionStatus = z.infer<typeof ProtectionStatus>;

/** A fresh install's protections before anything ran: the kill switch on, nothing in force. */
export const IDLE_PROTECTION: ProtectionStatus = Object.freeze({
  kill_switch: 'armed',
  lockdown: false,
  split: 'off',
  home_country: null,
  dns: [],
}) as ProtectionStatus;

/** How many of the tunnel's latency measurements the status carries (latency_history). */
export const LATENCY_HISTORY_SIZE = 60;

/** How the engine reaches its control plane (API access methods), and its relay list. */
export const ApiAccessStatus = z
  .object({
    setting: z
      .string()
      .describe(
        'The api_access setting: auto, direct, relays, or a proxy (shown without credentials).',
      ),
    in_use: z
      .string()
      .nullable()
      .describe('The method that reached the service last (direct, relays, a proxy), else null.'),
    reason: z
      .string()
      .nullable()
      .describe(
        'Why that method, in words (no address), when it is not the direct one; else null.',
      ),
    relay_list: z.object({
      relays: z.number().int().nonnegative().describe('Relays in the list in use (0: none).'),
      source: z.enum(['shipped', 'given', 'service']).nullable(),
      issued_at: z.string().nullable(),
      expires_at: z.string().nullable(),
      refused: z
        .object({
          source: z.enum(['shipped', 'given', 'service']),
          why: z.enum(['malformed', 'unknown-key', 'bad-signature', 'expired']),
          message: z.string(),
        })
        .nullable()
        .describe('The last list refused, and why; the last good one stays in use.'),
      key_from: z
        .enum(['daemon', 'config', 'shipped'])
        .nullable()
        .describe('Where the service key the lists are checked with comes from; null: none known.'),
    }),
  })
  .meta({ id: 'ApiAccessStatus' });
export type ApiAccessStatus = z.infer<typeof ApiAccessStatus>;

export const IDLE_API_ACCESS: ApiAccessStatus = {
  setting: 'auto',
  in_use: null,
  reason: null,
  relay_list: {
    relays: 0,
    source: null,
    issued_at: null,
    expires_at: null,
    refused: null,
    key_from: null,
  },
};

export const LocalStatus = z
  .object({
    status: z.enum(ENGINE_STATES),
    latency: LatencyText.nullable().describe('"<n>ms" whenever a tunnel is up, else null.'),
    latency_ms: z
      .number()
      .nonnegative()
      .nullable()
      .describe(
        'The same latency as a number of milliseconds (rounded as `latency` is), else null.',
      ),
    latency_history: z
      .array(z.number().nonnegative())
      .max(LATENCY_HISTORY_SIZE)
      .describe(
        'The last measurements of the tunnel to its node (ms, rounded as `latency` is), oldest first: a connect that begins and a disconnect clear them, a tunnel to another node starts afresh.',
      ),
    region: z.string().nullable(),
    node: LocalNode.nullable(),
    protocol: z.enum(PROTOCOLS).nullable(),
    cipher: z.enum(ENCRYPTIONS).nullable(),
    mode: z.enum(MODES).nullable(),
    platform: z
      .string()
      .nullable()
      .describe('The streaming platform stream mode is for (its table id), null: none.'),
    transport: z
      .enum(TRANSPORTS)
      .nullable()
      .describe(
        'The transport the tunnel runs over (udp, tcp, tls) whenever one is up, else null.',
      ),
    transport_reason: TransportReason.nullable().describe(
      'Why the tunnel runs over that transport (the autopilot’s findings, in words too), else null.',
    ),
    interface: z.string().nullable(),
    /** Why the engine is in error (or why the last connect failed), in words a person reads. */
    error: LocalFailure.nullable(),
    /** Whether this host holds a signed-in device (connect needs one). */
    signed_in: z.boolean(),
    /** Whether a control-plane URL is configured (connect needs one). */
    service_configured: z.boolean(),
    service_insecure: z
      .boolean()
      .describe(
        'The control plane is reached over plain HTTP across a network (the user said --insecure): an on-path attacker can read and change what it says.',
      ),
    notices: z.array(Notice),
    protection: ProtectionStatus,
    api_access: ApiAccessStatus,
  })
  .meta({ id: 'LocalStatus' });
export type LocalStatus = z.infer<typeof LocalStatus>;

/**
 * The spec's connect body, plus `mode`: all optional, the control API's value sets in any
 * letter case; what is left out comes from the configuration. `usage` implies a mode; giving
 * both that disagree is refused.
 */
export const LocalConnectRequest = z.strictObject({
  encryption: caseInsensitiveEnum(ENCRYPTIONS).optional(),
  protocol: caseInsensitiveEnum(PROTOCOLS).optional(),
  region: RegionSetting.optional(),
  usage: caseInsensitiveEnum(USAGES).optional(),
  mode: caseInsensitiveEnum(MODES).optional(),
  platform: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 +.-]{0,31}$/, 'a streaming platform, e.g. netflix')
    .optional()
    .describe(
      'Stream mode for this platform (its id or an alias, any letter case): only a node verified for it, and its traffic pinned to the tunnel. Implies mode stream.',
    ),
  via: EntryRegionSetting.optional().describe(
    'Multihop for this connect: enter at a relay of this region (or `auto`: one the service offers), leave at the node chosen as usual.',
  ),
});
export type LocalConnectRequest = z.output<typeof LocalConnectRequest>;

export const ExitAddresses = z.object({
  before: z
    .string()
    .nullable()
    .describe('The address the service saw before the tunnel (null: not measured).'),
  after: z.string().nullable().describe('The address the service sees through the tunnel.'),
});

export const LocalConnectResponse = LocalStatus.extend({
  exit_ip: ExitAddresses,
  routing: z.object({ strategy: z.string(), reasons: z.array(z.string()) }),
}).meta({ id: 'LocalConnectResponse' });
export type LocalConnectResponse = z.infer<typeof LocalConnectResponse>;

export const ConfigChangeResult = z.object({
  config: ClientConfig,
  changed: z.array(z.enum(CONFIG_KEYS)),
  /**
   * What the change did to a live tunnel: `reconnected` (a new session with the new settings),
   * `applied` (in place), `saved` (nothing live to change).
   */
  effect: z.enum(['reconnected', 'applied', 'saved']),
});
export type ConfigChangeResult = z.infer<typeof ConfigChangeResult>;

export const ConfigKeyParams = z.strictObject({ key: text(1, 64) });
export const ConfigSetRequest = z.strictObject({
  value: text(0, 512).describe('As typed on a command line: `on`, `WireGuard`, `none`...'),
});

/** A method of API access as typed: direct, relays, or a proxy URL. */
export const ApiMethodRequest = z.strictObject({
  method: text(1, 512).describe(
    'direct, relays, or a proxy socks5://host:port or http://host:port.',
  ),
});

/** One method tried: whether it reached the service, and why not. */
export const ApiAccessTest = z
  .object({
    method: z.string().describe('The method, without credentials.'),
    ok: z.boolean(),
    message: z
      .string()
      .describe('What happened, in words (no address): how long it took, or why it failed.'),
    elapsed_ms: z.number().nonnegative(),
  })
  .meta({ id: 'ApiAccessTest' });
export type ApiAccessTest = z.infer<typeof ApiAccessTest>;

/** The methods a user can choose, and what the engine uses now. */
export const ApiAccessList = ApiAccessStatus.extend({
  methods: z.array(
    z.object({
      method: z.string(),
      kind: z.enum(['direct', 'relays', 'socks5', 'http']),
      /** What this method is, in words (relays: how many the list has). */
      about: z.string(),
      in_use: z.boolean(),
    }),
  ),
}).meta({ id: 'ApiAccessList' });
export type ApiAccessList = z.infer<typeof ApiAccessList>;

/** `use`: the new setting, tried first; refused (the previous one kept) when it cannot reach the service. */
export const ApiAccessUse = z
  .object({ setting: z.string(), test: ApiAccessTest })
  .meta({ id: 'ApiAccessUse' });
export type ApiAccessUse = z.infer<typeof ApiAccessUse>;

export const InitRequest = z.strictObject({
  endpoint: ServiceUrl,
  protocol: caseInsensitiveEnum(PROTOCOLS).optional(),
  ca: ServiceCa.optional().describe(
    'CA certificates (PEM) to trust for this service besides the system’s (netcli init --ca-file).',
  ),
  insecure: z
    .boolean()
    .optional()
    .describe(
      'Accept plain http to a control plane on the network (unsafe; netcli init --insecure).',
    ),
  service_key: ServiceKey.optional().describe(
    "The service's public key, which its signed relay list is checked with (netcli init --service-key); without it, the one the service presents on first contact is recorded.",
  ),
});

/** The signed-in device and account, as this host knows them. */
export const LocalSession = z.object({
  account_number: z.string(),
  device: Device,
});
export type LocalSession = z.infer<typeof LocalSession>;

export const LocalCreateAccountRequest = CreateAccountRequest.extend({
  device_name: DeviceName.optional(),
});
export const LoginRequest = z.strictObject({
  account_number: TypedAccountNumber,
  password: text(0, 256).optional(),
  device_name: DeviceName.optional(),
});
export const LogoutResponse = z.object({ signed_in: z.literal(false) });

export const LocalAccountResponse = AccountResponse.extend({ device: Device });
/** The account's devices with their live state, as the control plane lists them. */
export const LocalDevicesResponse = z.object({ devices: z.array(ListedDevice) });

/** The devices `netcli devices add` sets up: those that run the official WireGuard apps. */
export const ADDED_DEVICE_KINDS = ['phone', 'tablet'] as const;

export const LocalAddDeviceRequest = z.strictObject({
  kind: caseInsensitiveEnum(ADDED_DEVICE_KINDS),
  name: DeviceName,
  region: RegionSetting.optional().describe(
    'Where its config points (a region rule’s name too); default: this host’s region setting.',
  ),
  allow_lan: z
    .boolean()
    .default(false)
    .describe('Leave the LAN (private, link-local and multicast ranges) out of its tunnel.'),
  dns: z
    .array(ResolverAddress)
    .min(1)
    .max(4)
    .optional()
    .describe('The resolvers of its config (through the tunnel); default: the relay’s own.'),
});
export type LocalAddDeviceRequest = z.output<typeof LocalAddDeviceRequest>;

export const LocalAddDeviceResponse = z
  .object({
    device: Device,
    config: z
      .string()
      .describe(
        'Its wg-quick config, private key included: shown once, kept nowhere (import it or scan its QR code now).',
      ),
    region: z.string().describe('The region of the node the config points at.'),
  })
  .meta({ id: 'LocalAddDeviceResponse' });
export type LocalAddDeviceResponse = z.infer<typeof LocalAddDeviceResponse>;

export const RegionRule = z
  .object({
    name: z.string(),
    area: z.string(),
    strategy: z.enum(REGION_STRATEGIES),
  })
  .meta({ id: 'RegionRule' });
export type RegionRule = z.infer<typeof RegionRule>;
export const RegionRuleRequest = z.strictObject({
  area: z
    .string()
    .regex(/^[a-z][a-z0-9-]{1,31}$/i, 'an area id')
    .transform((s) => s.toLowerCase()),
  strategy: caseInsensitiveEnum(REGION_STRATEGIES).default('lowest-latency'),
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{1,31}$/i, 'a name of 2-32 letters, digits and dashes')
    .transform((s) => s.toLowerCase())
    .optional(),
});
export const RegionRuleParams = z.strictObject({ name: text(1, 64) });

export const LocalRegion = Region.extend({
  latency: LatencyText.nullable().describe('The smoothed latency to its best node, if measured.'),
});
export const LocalRegionsResponse = z.object({
  regions: z.array(LocalRegion),
  rules: z.array(RegionRule),
});

export const LatencyCheckRequest = z.strictObject({
  all: z.boolean().default(false),
  count: z.number().int().min(1).max(100).default(5),
});
export const NodeLatency = z.object({
  node_id: z.string(),
  region: z.string(),
  method: z.string().describe('How it was measured, e.g. "authenticated UDP probe".'),
  samples: z.number().int(),
  avg_ms: z.number().nullable(),
  jitter_ms: z.number().nullable(),
  loss: z.number().min(0).max(1).describe('Share of probes without an answer.'),
});
export type NodeLatency = z.infer<typeof NodeLatency>;
export const LatencyCheckResponse = z.object({
  results: z.array(NodeLatency),
  duration_ms: z.number(),
  note: z
    .string()
    .optional()
    .describe(
      'Why nodes were left out, e.g. while connected only the node in use is measured (through the tunnel).',
    ),
});

function route<const R extends RouteDef>(r: R): R {
  return r;
}

/**
 * How long a face waits for the routes that take long (every other call keeps the client's
 * default, route-client.ts's DEFAULT_TIMEOUT_MS). The engine bounds its own work and aborts what
 * a client stops waiting for; these cover that and the way there and back.
 */
export const LOCAL_TIMEOUTS_MS = {
  /** A handshake and a first round trip, or a change of settings that reconnects a tunnel. */
  tunnel: 120_000,
  /** Probes of every node the plan allows (latency-check --all). */
  latencyCheck: 120_000,
  /** A new service for the configuration (init); a live tunnel follows it. */
  init: 60_000,
  /** A streaming platform asked through the tunnel (the engine's own probe takes up to 10 s). */
  streamTest: 60_000,
  /** Every check of diagnose (the engine bounds them to about 10 s). */
  diagnose: 30_000,
  /**
   * A call the engine makes to the control plane (sign-up, sign-in, account, devices, regions):
   * with API access auto on a network that blocks the service, a direct try and relays first.
   */
  control: 60_000,
  /** One API access method tried (its connection and TLS, up to about 20 s). */
  apiAccess: 45_000,
} as const;

/** A one-time URL of the web graphical mode (http://127.0.0.1:PORT/session/TOKEN). */
export const OpenGuiResponse = z.object({ url: z.url({ protocol: /^http$/ }) });
export type OpenGuiResponse = z.infer<typeof OpenGuiResponse>;

export const localRoutes = {
  status: route({
    method: 'GET',
    path: '/status',
    auth: 'none',
    status: 200,
    summary: 'The connection: state, latency, region, node',
    response: LocalStatus,
  }),
  connect: route({
    method: 'POST',
    path: '/connect',
    auth: 'none',
    status: 200,
    summary: 'Connect; answers once the tunnel carries traffic',
    body: LocalConnectRequest,
    response: LocalConnectResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.tunnel,
  }),
  disconnect: route({
    method: 'POST',
    path: '/disconnect',
    auth: 'none',
    status: 200,
    summary: 'Disconnect and remove what the connection made',
    response: LocalStatus,
  }),
  events: route({
    method: 'GET',
    path: '/events',
    auth: 'none',
    status: 200,
    summary: 'Server-sent events: `status` on every change (latency included), `notice`',
    stream: 'text/event-stream',
    events: { status: LocalStatus, notice: Notice },
  }),
  getConfig: route({
    method: 'GET',
    path: '/config',
    auth: 'none',
    status: 200,
    summary: 'The client configuration',
    response: ClientConfig,
  }),
  patchConfig: route({
    method: 'PATCH',
    path: '/config',
    auth: 'none',
    status: 200,
    summary: 'Change some keys (typed JSON values); a live tunnel follows',
    body: ClientConfigPatch,
    response: ConfigChangeResult,
    timeoutMs: LOCAL_TIMEOUTS_MS.tunnel,
  }),
  setConfigKey: route({
    method: 'PUT',
    path: '/config/:key',
    auth: 'none',
    status: 200,
    summary: 'Set one key from its text form (netcli config set)',
    params: ConfigKeyParams,
    body: ConfigSetRequest,
    response: ConfigChangeResult,
    timeoutMs: LOCAL_TIMEOUTS_MS.tunnel,
  }),
  init: route({
    method: 'POST',
    path: '/init',
    auth: 'none',
    status: 200,
    summary: 'Set the control-plane URL and the protocol',
    body: InitRequest,
    response: ConfigChangeResult,
    timeoutMs: LOCAL_TIMEOUTS_MS.init,
  }),
  createAccount: route({
    method: 'POST',
    path: '/account',
    auth: 'none',
    status: 201,
    summary: 'Create a free account and sign this device in',
    body: LocalCreateAccountRequest,
    response: LocalSession,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  login: route({
    method: 'POST',
    path: '/login',
    auth: 'none',
    status: 200,
    summary: 'Sign this device in to an account',
    body: LoginRequest,
    response: LocalSession,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  logout: route({
    method: 'POST',
    path: '/logout',
    auth: 'none',
    status: 200,
    summary: 'Disconnect, revoke this device and forget its token',
    response: LogoutResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  account: route({
    method: 'GET',
    path: '/account',
    auth: 'none',
    status: 200,
    summary: 'Plan, devices and usage of the signed-in account',
    response: LocalAccountResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  listDevices: route({
    method: 'GET',
    path: '/devices',
    auth: 'none',
    status: 200,
    summary: "The account's devices",
    response: LocalDevicesResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  addDevice: route({
    method: 'POST',
    path: '/devices',
    auth: 'none',
    status: 201,
    summary:
      'Add a phone or tablet (the official WireGuard apps) to the account: its key pair made here, only the public key registered, its config with the private key filled in here answered once; the key is kept nowhere',
    body: LocalAddDeviceRequest,
    response: LocalAddDeviceResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  renameDevice: route({
    method: 'PATCH',
    path: '/devices/:id',
    auth: 'none',
    status: 200,
    summary: 'Rename a device of the account',
    params: DeviceParams,
    body: RenameDeviceRequest,
    response: Device,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  revokeDevice: route({
    method: 'DELETE',
    path: '/devices/:id',
    auth: 'none',
    status: 204,
    summary: 'Revoke a device of the account (this one: signs out)',
    params: DeviceParams,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  listRegions: route({
    method: 'GET',
    path: '/regions',
    auth: 'none',
    status: 200,
    summary: 'Regions with load, plan and measured latency, and the region rules',
    response: LocalRegionsResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.control,
  }),
  addRegionRule: route({
    method: 'POST',
    path: '/regions/rules',
    auth: 'none',
    status: 201,
    summary: 'Add a region rule (a name accepted wherever a region is)',
    body: RegionRuleRequest,
    response: RegionRule,
  }),
  removeRegionRule: route({
    method: 'DELETE',
    path: '/regions/rules/:name',
    auth: 'none',
    status: 204,
    summary: 'Remove a region rule',
    params: RegionRuleParams,
  }),
  latencyCheck: route({
    method: 'POST',
    path: '/latency-check',
    auth: 'none',
    status: 200,
    summary: 'Measure average, jitter and loss to the current node or every allowed node',
    body: LatencyCheckRequest,
    response: LatencyCheckResponse,
    timeoutMs: LOCAL_TIMEOUTS_MS.latencyCheck,
  }),
  streamTest: route({
    method: 'POST',
    path: '/stream-test',
    auth: 'none',
    status: 200,
    summary: 'Probe a streaming platform through the tunnel: reachable, catalogue region, verdict',
    body: StreamTestRequest,
    response: StreamTestResult,
    timeoutMs: LOCAL_TIMEOUTS_MS.streamTest,
  }),
  apiAccess: route({
    method: 'GET',
    path: '/api-access',
    auth: 'none',
    status: 200,
    summary: 'How the control plane is reached: the methods, the one in use, the relay list',
    response: ApiAccessList,
  }),
  testApiAccess: route({
    method: 'POST',
    path: '/api-access/test',
    auth: 'none',
    status: 200,
    summary: 'Try one API access method without switching to it',
    body: ApiMethodRequest,
    response: ApiAccessTest,
    timeoutMs: LOCAL_TIMEOUTS_MS.apiAccess,
  }),
  useApiAccess: route({
    method: 'POST',
    path: '/api-access/use',
    auth: 'none',
    status: 200,
    summary:
      'Switch to an API access method (or auto) once it reaches the service; the previous one stays when it does not',
    body: ApiMethodRequest,
    response: ApiAccessUse,
    timeoutMs: LOCAL_TIMEOUTS_MS.apiAccess,
  }),
  diagnose: route({
    method: 'POST',
    path: '/diagnose',
    auth: 'none',
    status: 200,
    summary:
      'One-click diagnostics: each check (engine, control plane, clock, node over UDP and TCP, DNS and IPv6 leaks, MTU, kill switch, split) with a verdict and a fix',
    response: DiagnosticsReport,
    timeoutMs: LOCAL_TIMEOUTS_MS.diagnose,
  }),
  listServices: route({
    method: 'GET',
    path: '/services',
    auth: 'none',
    status: 200,
    summary: 'The services (shipped and your own): networks and domains a service tunnel carries',
    response: DestinationSetsResponse,
  }),
  addService: route({
    method: 'POST',
    path: '/services',
    auth: 'none',
    status: 201,
    summary: 'Add a service of your own: a name, networks (CIDR) and domains',
    body: AddDestinationSetRequest,
    response: DestinationSet,
  }),
  removeService: route({
    method: 'DELETE',
    path: '/services/:name',
    auth: 'none',
    status: 204,
    summary: 'Remove a service of your own',
    params: DestinationSetParams,
  }),
  listSplitRules: route({
    method: 'GET',
    path: '/split/rules',
    auth: 'none',
    status: 200,
    summary: 'The split rules by domain and by program, on top of the split by country',
    response: SplitRulesResponse,
  }),
  addSplitRule: route({
    method: 'POST',
    path: '/split/rules',
    auth: 'none',
    status: 201,
    summary:
      'Send a domain and its subdomains, or a program, direct or through the tunnel only (a rule for the same one is replaced)',
    body: SplitRuleRequest,
    response: SplitRule,
  }),
  removeSplitRule: route({
    method: 'DELETE',
    path: '/split/rules',
    auth: 'none',
    status: 204,
    summary: 'Remove the split rule of a domain or a program',
    query: SplitRuleQuery,
  }),
  splitExec: route({
    method: 'POST',
    path: '/split/exec',
    auth: 'none',
    status: 204,
    summary:
      'Put a `netcli exec` process (and so the program it starts) on one way: direct or the tunnel only',
    body: SplitExecRequest,
  }),
  startTunnel: route({
    method: 'POST',
    path: '/tunnels',
    auth: 'none',
    status: 201,
    summary:
      "Start a service tunnel: its own interface and session, only the service's destinations; answers once traffic crosses it",
    body: StartTunnelRequest,
    response: ServiceTunnel,
    timeoutMs: LOCAL_TIMEOUTS_MS.tunnel,
  }),
  listTunnels: route({
    method: 'GET',
    path: '/tunnels',
    auth: 'none',
    status: 200,
    summary: 'The running service tunnels: tag, service, node, latency, interface',
    response: ServiceTunnelsResponse,
  }),
  stopTunnel: route({
    method: 'DELETE',
    path: '/tunnels/:tag',
    auth: 'none',
    status: 200,
    summary: 'Stop a service tunnel and remove it from the control plane',
    params: TunnelTagParams,
    response: StopTunnelResponse,
  }),
  openGui: route({
    method: 'POST',
    path: '/gui',
    auth: 'none',
    status: 200,
    summary:
      'The web graphical mode: the host serves the app on 127.0.0.1 and answers a one-time URL that signs a browser in',
    response: OpenGuiResponse,
  }),
} as const satisfies Record<string, RouteDef>;

export type LocalRoutes = typeof localRoutes;
export type LocalRouteId = keyof LocalRoutes;
export type LocalClient = RouteClient<LocalRoutes>;

/**
 * A client of the engine host. `fetch` carries the requests to the socket (the host's clients
 * inject one that dials the unix socket); the base URL defaults to the one Host the API takes.
 */
export function createLocalClient(
  options: Omit<RouteClientOptions, 'baseUrl' | 'token'> & { baseUrl?: string },
): LocalClient {
  return createRouteClient(localRoutes, LOCAL_API_PREFIXES, {
    ...options,
    baseUrl: options.baseUrl ?? LOCAL_API_BASE_URL,
  });
}

/** The status of an engine that has done nothing yet. */
export function idleStatus(
  signedIn: boolean,
  serviceConfigured: boolean,
  protection: ProtectionStatus = IDLE_PROTECTION,
  serviceInsecure = false,
): LocalStatus {
  return {
    status: 'disconnected',
    latency: null,
    latency_ms: null,
    latency_history: [],
    region: null,
    node: null,
    protocol: null,
    cipher: null,
    mode: null,
    platform: null,
    transport: null,
    transport_reason: null,
    interface: null,
    error: null,
    signed_in: signedIn,
    service_configured: serviceConfigured,
    service_insecure: serviceInsecure,
    notices: [],
    protection: { ...protection, dns: [...protection.dns] },
    api_access: structuredClone(IDLE_API_ACCESS),
  };
}

/** A measurement as the status gives it: whole milliseconds, one decimal below 10 ms. */
export function latencyFigure(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('a latency is a non-negative number');
  return ms < 10 ? Math.round(ms * 10) / 10 : Math.round(ms);
}

/** "<n>ms" for a measurement (latencyFigure's number). */
export function latencyText(ms: number): string {
  return `${latencyFigure(ms)}ms`;
}
