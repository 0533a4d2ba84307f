// Request and response schemas of the control-plane API (v1); field names are the contract.
import { z } from 'zod';
import { CountryCode, PLATFORM_CHECK_VERDICTS, PlatformId } from './platforms.js';
import { PROBLEM_FIELDS } from './problem.js';
import { TlsServerName } from './tls-server-name.js';
import {
  AccountNumber,
  CONNECTION_STATES,
  DEVICE_KINDS,
  ENCRYPTIONS,
  MODES,
  PLAN_IDS,
  PROTOCOLS,
  PublicKey,
  REGION_STRATEGIES,
  RegionId,
  TypedAccountNumber,
  USAGES,
  VALUE_SET,
  caseInsensitiveEnum,
  caseInsensitivePattern,
  displayName,
  queryInteger,
  text,
} from './values.js';

// ---- public ---------------------------------------------------------------------------------

export const HealthResponse = z.object({
  status: z.literal('ok'),
  version: z.string(),
  api: z.literal('v1'),
});

/** The address a request came from, as the control plane sees it (echoed, never stored or logged). */
export const IpResponse = z.object({ ip: z.string() });

export const Plan = z
  .object({
    id: z.string(),
    name: z.string(),
    price_monthly_eur: z.number(),
    device_limit: z.number().int(),
    regions: z.array(z.string()).describe('Region ids the plan may connect to.'),
    data_cap_bytes: z.number().int().nullable().describe('Monthly data cap; null = unlimited.'),
    bandwidth_limit_mbps: z.number().int().nullable().describe('Per-device rate; null = none.'),
    protocols: z.array(z.enum(PROTOCOLS)),
  })
  .meta({ id: 'Plan' });
export type Plan = z.infer<typeof Plan>;

export const PlansResponse = z.object({ plans: z.array(Plan) });

export const CreateAccountRequest = z.strictObject({
  password: text(10, 256).optional(),
});
export const CreateAccountResponse = z.object({
  account_number: AccountNumber,
  plan: z.string(),
});

/** A device's name: shown in lists and written into configuration files. */
export const DeviceName = displayName(64);

export const DeviceInput = z.strictObject({
  name: DeviceName,
  kind: caseInsensitiveEnum(DEVICE_KINDS),
  wireguard_public_key: PublicKey,
  ferry_public_key: PublicKey,
});

/** "<n>ms", the spec's latency text (whole milliseconds, or one decimal below 10 ms). */
export const LatencyText = z.string().regex(/^\d+(\.\d+)?ms$/);

export const Device = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(DEVICE_KINDS),
    wireguard_public_key: z.string(),
    ferry_public_key: z.string(),
    tunnel_ipv4: z.string(),
    tunnel_ipv6: z.string(),
    current: z.boolean().describe('True for the device whose token made the request.'),
  })
  .meta({ id: 'Device' });
export type Device = z.infer<typeof Device>;

/**
 * A device added by a signed-in one (a phone or tablet set up from a laptop): the public keys
 * of key pairs made where the private keys stay. It gets no token: it never calls the API.
 */
export const AddDeviceRequest = DeviceInput;

export const CreateSessionRequest = z.strictObject({
  account_number: TypedAccountNumber,
  password: text(0, 256).optional(),
  device: DeviceInput,
});
export const CreateSessionResponse = z.object({
  token: z.string(),
  device: Device,
});

// ---- device-authenticated ---------------------------------------------------------------------

export const AccountResponse = z.object({
  account_number: AccountNumber,
  plan: Plan,
  devices: z.object({ used: z.number().int(), limit: z.number().int() }),
  usage: z.object({
    period: z.string().describe('Calendar month, YYYY-MM (UTC).'),
    bytes: z.number().int(),
    data_cap_bytes: z.number().int().nullable(),
  }),
});

/**
 * A device as GET /devices lists it: its record and its live state, from the same live session
 * GET /devices/:id/status reads (nothing of it is stored: it exists while the session does).
 */
export const ListedDevice = Device.extend({
  status: z
    .enum(CONNECTION_STATES)
    .describe(
      'connected: its tunnel is up and measured; connecting: a session, its tunnel not up (or not measured) yet; disconnected: no session.',
    ),
  latency: LatencyText.nullable().describe(
    '"<number>ms" whenever connected (the client\'s report, else the node\'s measurement through the tunnel); else null.',
  ),
  region: z.string().nullable().describe("The session's region; null when disconnected."),
}).meta({ id: 'ListedDevice' });
export type ListedDevice = z.infer<typeof ListedDevice>;

export const DevicesResponse = z.object({ devices: z.array(ListedDevice) });
export const DeviceParams = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a device id'),
});
export const RenameDeviceRequest = z.strictObject({ name: DeviceName });
export const RotateKeysRequest = z
  .strictObject({
    wireguard_public_key: PublicKey.optional(),
    ferry_public_key: PublicKey.optional(),
  })
  .refine((b) => b.wireguard_public_key !== undefined || b.ferry_public_key !== undefined, {
    message: 'give wireguard_public_key, ferry_public_key or both',
  })
  // The refinement above, as JSON Schema: with only these two members, at least one.
  .meta({ minProperties: 1 });

export const Region = z
  .object({
    id: z.string(),
    name: z.string(),
    area: z.string(),
    country: z.string().nullable(),
    load: z.number().describe('Mean load of the healthy nodes, 0..1; 0 when none.'),
    nodes_healthy: z.number().int(),
    platforms_verified: z
      .array(z.string())
      .describe(
        'Platforms (ids of the platform table) that a healthy node of the region was verified for recently: its own latest check reached the catalogue, with no proxy or "not offered" answer.',
      ),
    allowed: z.boolean().describe("Whether the caller's plan may connect here."),
    entry: z
      .boolean()
      .optional()
      .describe(
        'Its relays are offered as the entries of multihop paths (a domestic first hop). Absent only from an older control plane (none then).',
      ),
  })
  .meta({ id: 'Region' });
export type Region = z.infer<typeof Region>;
export const RegionsResponse = z.object({ regions: z.array(Region) });

export const NodesQuery = z.strictObject({ region: RegionId.optional() });

/** A 32-byte key, base64 (44 characters with its padding). */
const Base64Key32 = z.string().regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/);

export const NodeProbe = z
  .object({
    port: z.number().int().describe("UDP port of the node's latency probe responder."),
    key: Base64Key32.describe(
      "The node's probe key (32 bytes, base64): authorises asking this node's latency, and nothing else. Probes without it get no answer at all (docs/latency-probes.md).",
    ),
  })
  .meta({ id: 'NodeProbe' });
export type NodeProbe = z.infer<typeof NodeProbe>;

/** A node's latest check of one streaming platform, as devices see it. */
export const NodePlatform = z
  .object({
    platform: z.string().describe('A platform id of the platform table.'),
    verified: z
      .boolean()
      .describe(
        'The node\'s latest check reached the catalogue (no proxy or "not offered" answer), and is fresh enough to count.',
      ),
    verdict: z.enum(PLATFORM_CHECK_VERDICTS),
    region: z
      .string()
      .nullable()
      .describe("The catalogue's country the platform served the node; null: not read."),
    checked_age_seconds: z.number().int().describe('How long ago the node checked.'),
  })
  .meta({ id: 'NodePlatform' });
export type NodePlatform = z.infer<typeof NodePlatform>;

/** A node's TLS transport, wherever a node's ports are shown. */
/** Where and how a client reaches a node (the connect answer's node, the signed relay list's). */
export const NODE_ENDPOINT = {
  id: z.string(),
  region: z.string(),
  endpoint_host: z.string(),
  wireguard_port: z.number().int(),
  wireguard_public_key: z.string(),
  ferry_port: z.number().int().nullable(),
  ferry_public_key: z.string().nullable(),
};

const NODE_TLS = {
  tls_port: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe(
      "TCP port of the node's TLS transport; null: the node serves none. Absent only from an older control plane.",
    ),
  tls_server_name: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The server name a client puts in its TLS hello to the node's TLS port (the cover site's); null with no TLS port.",
    ),
};

export const Node = z
  .object({
    id: z.string(),
    region: z.string(),
    endpoint_host: z.string(),
    wireguard_port: z.number().int(),
    ferry_port: z.number().int().nullable(),
    wireguard_public_key: z.string().nullable(),
    ferry_public_key: z.string().nullable(),
    ...NODE_TLS,
    load: z.number(),
    capacity_mbps: z.number().int(),
    healthy: z.boolean(),
    probe: NodeProbe.nullable().describe(
      'Where and how to measure latency to the node; null while its relay runs no probe responder.',
    ),
    platforms: z
      .array(NodePlatform)
      .optional()
      .describe(
        "The node's latest result per streaming platform (stream mode picks verified ones); empty while its relay has reported none. Absent only from an older control plane.",
      ),
  })
  .meta({ id: 'Node' });
export type Node = z.infer<typeof Node>;
export const NodesResponse = z.object({ nodes: z.array(Node) });

const REGION_CHOICE = new RegExp(
  `^(?:[a-z][a-z0-9-]{1,31})(?::(?:${REGION_STRATEGIES.join('|')}))?$`,
  'i',
);

/**
 * Where to connect: `auto`, a region id, or a region rule `<area>[:strategy]`, in any letter
 * case. Which regions and areas exist only the running service knows: its API document lists
 * them (the value set), and the service answers 400 for others.
 */
export const RegionChoice = z
  .string()
  .regex(REGION_CHOICE, 'auto, a region id, or a region rule <area>[:strategy]')
  .transform((s) => s.toLowerCase())
  .meta({
    [VALUE_SET]: 'region-choice',
    description:
      'auto, a region id, or a region rule "<area>[:lowest-latency|least-load|fallback]" (any letter case).',
  })
  .optional();

/** The JSON Schema pattern of region choices, given the regions that exist. */
export function regionChoicePattern(regions: readonly { id: string; area: string }[]): string {
  const areas = [...new Set(regions.map((r) => r.area))];
  const values = new Set([
    'auto',
    ...regions.map((r) => r.id),
    ...areas.flatMap((a) => [a, ...REGION_STRATEGIES.map((s) => `${a}:${s}`)]),
  ]);
  return caseInsensitivePattern([...values]);
}

/**
 * A device tunnel's tag: what the device calls it (`netcli tunnel start --tag`), unique among
 * the device's tunnels; letters, digits and dashes, any letter case, kept in lower case.
 */
export const TunnelTag = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/, 'letters, digits and dashes, 1-32 characters')
  .transform((s) => s.toLowerCase());

/** How many tunnels one device may hold besides its own (they are not device slots). */
export const TUNNELS_PER_DEVICE = 8;

export const CreateTunnelRequest = z.strictObject({
  tag: TunnelTag,
  wireguard_public_key: PublicKey,
  ferry_public_key: PublicKey,
});

export const DeviceTunnel = z
  .object({
    id: z.string().describe("The tunnel's peer id: the `device_id` it has in the peer feed."),
    device_id: z.string(),
    tag: z.string(),
    wireguard_public_key: z.string(),
    ferry_public_key: z.string(),
    tunnel_ipv4: z.string(),
    tunnel_ipv6: z.string(),
  })
  .meta({ id: 'DeviceTunnel' });
export type DeviceTunnel = z.infer<typeof DeviceTunnel>;
export const DeviceTunnelsResponse = z.object({ tunnels: z.array(DeviceTunnel) });
export const DeviceTunnelParams = DeviceParams.extend({ tag: TunnelTag });

/**
 * A streaming platform: an id or an alias of the platform table, in any letter case. Which exist
 * only the running service knows (its table, and what its relays check): its API document lists
 * them, and the service answers 400 for others.
 */
export const PlatformChoice = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 +.-]{0,31}$/, 'a streaming platform, e.g. netflix')
  .transform((s) => s.toLowerCase())
  .meta({
    [VALUE_SET]: 'platform',
    description:
      'A streaming platform of the service’s table, by id or alias (any letter case), e.g. netflix.',
  });

const STREAMING_ONLY = caseInsensitivePattern(['streaming']);
const FERRY_ONLY = caseInsensitivePattern(['ferry']);

const ConnectFields = z.strictObject({
  encryption: caseInsensitiveEnum(ENCRYPTIONS).optional(),
  protocol: caseInsensitiveEnum(PROTOCOLS).optional(),
  region: RegionChoice,
  usage: caseInsensitiveEnum(USAGES).optional(),
  platform: PlatformChoice.optional().describe(
    'Stream mode for this platform: only a node whose own latest check verified the platform, recently, is chosen (409 platform-unverified when nodes are there but none is verified for it). Implies usage streaming; another usage with it is refused.',
  ),
  transport: z
    .enum(['tcp', 'tls'])
    .optional()
    .describe(
      'Ferry over this transport (the client’s obfuscation setting names it): only a node that serves it is chosen (tls: one whose relay registered a TLS port). Goes with protocol ferry (WireGuard has UDP only).',
    ),
  tunnel: TunnelTag.optional().describe(
    "Connect one of the calling device's tunnels (POST /devices/:id/tunnels) by its tag: the answer carries that tunnel's addresses and starts its own session; the device's session is left as it is.",
  ),
  latencies: z
    .record(text(1, 64), z.number().nonnegative().max(60_000))
    .refine((r) => Object.keys(r).length <= 256, 'at most 256 entries')
    .meta({ maxProperties: 256 })
    .optional()
    .describe("The client's smoothed latency to nodes, in ms, keyed by node id."),
  probe_nodes: z
    .boolean()
    .optional()
    .describe(
      "Ask for `probe_nodes` in the answer (the client's measurements are old or missing): without it the answer stays small, which matters on a path that drops large packets.",
    ),
  unreachable: z
    .array(text(1, 64))
    .max(16)
    .optional()
    .describe(
      'Nodes this client just lost or could not reach (failover): another node is chosen when there is one; only when none is left is one of these offered again.',
    ),
  entry_region: RegionId.optional().describe(
    'Multihop: enter at a relay of this region (one marked `entry`), which forwards the encrypted tunnel to the exit node chosen as usual; the answer then carries `entry`. The plan limits the exit, once.',
  ),
});

export const ConnectRequest = ConnectFields.superRefine((b, ctx) => {
  if (b.platform !== undefined && b.usage !== undefined && b.usage !== 'streaming')
    ctx.addIssue({
      code: 'custom',
      path: ['usage'],
      message:
        'a platform goes with usage streaming (stream mode): give streaming or leave usage out',
    });
  if (b.transport !== undefined && b.protocol !== 'ferry')
    ctx.addIssue({
      code: 'custom',
      path: ['transport'],
      message: `WireGuard has UDP only: a transport goes with protocol ferry (ask for ferry over ${b.transport.toUpperCase()})`,
    });
})
  // The refinements above, as JSON Schema.
  .meta({
    dependentSchemas: {
      platform: { properties: { usage: { pattern: STREAMING_ONLY } } },
      transport: { required: ['protocol'], properties: { protocol: { pattern: FERRY_ONLY } } },
    },
  });
export type ConnectRequest = z.output<typeof ConnectRequest>;

export const Notice = z.object({
  code: z.string(),
  /** English words, for a face that has none of its own for the code (a newer one). */
  message: z.string(),
  /**
   * The facts the message states (a region, a transport, ...), language-free, so that each face
   * words the notice in its own language. Absent from an older engine or control plane.
   */
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type Notice = z.infer<typeof Notice>;

export const ConnectResponse = z.object({
  session_id: z.string(),
  status: z.enum(CONNECTION_STATES),
  region: z.string(),
  protocol: z.enum(PROTOCOLS),
  cipher: z.enum(ENCRYPTIONS),
  usage: z.enum(USAGES),
  mode: z.enum(MODES),
  node: z.object({ ...NODE_ENDPOINT, ...NODE_TLS }),
  entry: z
    .object({
      id: z.string(),
      region: z.string(),
      endpoint_host: z.string(),
      wireguard_port: z
        .number()
        .int()
        .describe("The entry's port forwarding to the exit's WireGuard port."),
      ferry_port: z
        .number()
        .int()
        .nullable()
        .describe(
          "The entry's port forwarding to the exit's Ferry port (UDP and TCP); null: the exit serves none.",
        ),
      tls_port: z
        .number()
        .int()
        .nullable()
        .describe(
          "The entry's port forwarding to the exit's TLS transport; null: the exit serves none.",
        ),
    })
    .optional()
    .describe(
      'Multihop (entry_region asked): the relay to connect to, which forwards to `node`. The tunnel is with `node` (its keys, its server name); only the address and ports are the entry’s.',
    ),
  tunnel: z.object({
    ipv4: z.string(),
    ipv6: z.string(),
    dns: z.array(z.string()),
    mtu: z.number().int(),
    keepalive: z.number().int().describe('Seconds between keepalives.'),
    allowed_ips: z.array(z.string()),
  }),
  rotation: z.object({
    session_key_seconds: z.number().int(),
    session_key_bytes: z
      .number()
      .int()
      .nullable()
      .describe('null: the protocol rekeys on time only.'),
  }),
  routing: z.object({
    strategy: z.string(),
    reasons: z
      .array(z.string())
      .describe('Why this node was chosen, for `--verbose` and tooltips.'),
  }),
  notices: z.array(Notice),
  client_ip: z
    .string()
    .optional()
    .describe(
      'The address this request came from, as the service sees it (what GET /ip answers; never stored or logged): the client needs no call of its own for it. Absent only from an older control plane.',
    ),
  probe_nodes: z
    .array(Node.pick({ id: true, region: true, endpoint_host: true, probe: true }))
    .optional()
    .describe(
      "Given when the request asked for it (`probe_nodes: true`): the healthy nodes of the regions the device's plan allows, with their latency probe responders, which the client measures for its next connect's `latencies` without listing regions and nodes.",
    ),
});
export type ConnectResponse = z.infer<typeof ConnectResponse>;

export const StatusResponse = z.object({
  status: z.enum(CONNECTION_STATES),
  latency: LatencyText.nullable().describe(
    '"<number>ms" whenever connected; null while nothing has measured it.',
  ),
  region: z.string().nullable(),
  session_id: z.string().nullable(),
  node_id: z.string().nullable(),
  protocol: z.enum(PROTOCOLS).nullable(),
  cipher: z.enum(ENCRYPTIONS).nullable(),
});
export type StatusResponse = z.infer<typeof StatusResponse>;

/** How long a latency the client reported counts before the node's own measurement does again. */
export const CLIENT_LATENCY_FRESH_SECONDS = 30;

export const ReportLatencyRequest = z.strictObject({
  latency_ms: z
    .number()
    .nonnegative()
    .max(60_000)
    .describe("The client's current round-trip time to its node through the tunnel, in ms."),
  session_id: text(1, 64)
    .optional()
    .describe(
      'The session it was measured on (from connect): a report for a session that is no longer current is ignored.',
    ),
});

/** POST /status/latency's answer: the status, and the address the report came from (a check-in). */
export const ReportLatencyResponse = StatusResponse.extend({
  client_ip: z
    .string()
    .optional()
    .describe(
      'The address this report came from, as the service sees it (never stored or logged): through the tunnel, its exit. Absent only from an older control plane.',
    ),
});

export const DisconnectResponse = z.object({ status: z.literal('disconnected') });

/** GET /events sends this when the device is revoked, then ends the stream. */
export const RevokedEvent = z.object({ device_id: z.string() });

/**
 * The line of a rendered wg-quick config where the private key goes. The service never sees a
 * private key: the device that made the key pair replaces this line with `PrivateKey = <key>`.
 */
export const WIREGUARD_PRIVATE_KEY_PLACEHOLDER =
  '# PrivateKey = <made on your device, filled in there: it never reaches the service>';

/** Why `private_key` is refused, as the 400 says it. */
export const PRIVATE_KEY_REFUSED =
  'refused: device keys never leave the device. Make the key pair on the device and register only its public key: `netcli devices add` does that, asks for the config without the key and fills the key in locally';

/** A DNS resolver's address as a config names it. */
export const ResolverAddress = z.union([z.ipv4(), z.ipv6()]);

export const WireguardConfigRequest = z.strictObject({
  region: RegionChoice,
  allow_lan: z
    .boolean()
    .default(false)
    .describe(
      "true: AllowedIPs leave out the private (RFC 1918 and fc00::/7), link-local and multicast ranges, so that the device still reaches its LAN; the tunnel's resolvers and gateway stay in the tunnel.",
    ),
  dns: z
    .array(ResolverAddress)
    .min(1)
    .max(4)
    .optional()
    .describe(
      "The config's DNS line: the resolvers the account holder chose, reached through the tunnel. Default: the relay's own resolver on the tunnel gateway address (10.64.0.1), as POST /connect gives it.",
    ),
  private_key: z
    .never({ error: PRIVATE_KEY_REFUSED })
    .optional()
    .describe(
      'Refused (400 validation-failed): device keys never leave the device. The config comes with a placeholder line where the key goes; the device that made the key pair fills it in.',
    ),
});
export const WireguardConfigResponse = z.object({
  session_id: z.string(),
  node_id: z.string(),
  region: z.string(),
  config: z
    .string()
    .describe(
      `wg-quick format, for the official WireGuard apps, with the line "${WIREGUARD_PRIVATE_KEY_PLACEHOLDER}" where the device fills in its private key (no QR code: one without the key could not be used; the device draws it once the key is in).`,
    ),
});

// ---- admin ----------------------------------------------------------------------------------

export const CreateRegionRequest = z.strictObject({
  id: RegionId,
  name: displayName(64),
  area: RegionId,
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code')
    .transform((s) => s.toUpperCase())
    .nullable(),
  entry: z
    .boolean()
    .optional()
    .describe(
      'The region offers its relays as the entries of multihop paths (a first hop inside a network that lets only it through); default false.',
    ),
});
export const UpdateRegionRequest = z
  .strictObject({
    name: displayName(64).optional(),
    entry: z
      .boolean()
      .optional()
      .describe('Offer (or withdraw) the region’s relays as multihop entries.'),
  })
  .refine((r) => r.name !== undefined || r.entry !== undefined, 'name or entry');
export const RegionParams = z.strictObject({ id: RegionId });
export const RegionRecord = z.object({
  id: z.string(),
  name: z.string(),
  area: z.string(),
  country: z.string().nullable(),
  entry: z.boolean(),
});

export const CreateNodeRequest = z.strictObject({
  region: RegionId.meta({ [VALUE_SET]: 'region-id' }),
  endpoint_host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:-]+$/, 'a host name or IP address'),
  wireguard_port: z.number().int().min(1).max(65535),
  ferry_port: z.number().int().min(1).max(65535).nullable().optional(),
  capacity_mbps: z.number().int().min(1).max(100_000),
});
export const CreateNodeResponse = z.object({
  id: z.string(),
  token: z.string().describe('The node token; shown once.'),
  region: z.string(),
});

export const NodeParams = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a node id'),
});
export const CheckPlatformsResponse = z.object({
  node_id: z.string(),
  requested: z.literal(true),
  within_seconds: z
    .number()
    .int()
    .describe('The node hears of it with its next heartbeat, within about this long.'),
});

export const AccountNumberParams = z.strictObject({ number: AccountNumber });
export const SetPlanRequest = z.strictObject({ plan: caseInsensitiveEnum(PLAN_IDS) });
export const SetPlanResponse = z.object({ account_number: AccountNumber, plan: z.string() });

// ---- node -----------------------------------------------------------------------------------

/** A port a relay registers; absent or null: it serves nothing there. */
const NodePort = z.number().int().min(1).max(65535).nullable().optional();

export const RegisterNodeRequest = z
  .strictObject({
    wireguard_public_key: PublicKey,
    ferry_public_key: PublicKey.nullable().optional(),
    probe_port: NodePort.describe(
      "UDP port of the node's latency probe responder; absent or null: it runs none.",
    ),
    tls_port: NodePort.describe(
      "TCP port of the node's TLS transport; absent or null: it serves none.",
    ),
    tls_server_name: TlsServerName.nullable()
      .optional()
      .describe(
        "The cover site's name, which clients put in their TLS hello; given with tls_port, and only with it.",
      ),
  })
  .refine((b) => (b.tls_port == null) === (b.tls_server_name == null), {
    message: 'give tls_port and tls_server_name together, or neither',
    path: ['tls_server_name'],
  })
  // The refinement above, as JSON Schema: a port needs a name, and no port no name.
  .meta({
    if: { properties: { tls_port: { type: 'integer' } }, required: ['tls_port'] },
    then: { properties: { tls_server_name: { type: 'string' } }, required: ['tls_server_name'] },
    else: { properties: { tls_server_name: { type: 'null' } } },
  });
export const RegisterNodeResponse = z.object({
  id: z.string(),
  region: z.string(),
  tunnel: z.object({
    ipv4_cidr: z.string(),
    ipv6_cidr: z.string(),
    ipv4_gateway: z.string(),
    ipv6_gateway: z.string(),
  }),
  heartbeat_seconds: z.number().int(),
  capacity_mbps: z
    .number()
    .int()
    .describe('The capacity the operator gave the node; load is measured against it.'),
  probe_key: Base64Key32.describe(
    "The key the node's probe responder checks probes with (32 bytes, base64).",
  ),
});

/** A relay's own latest check of one streaming platform, through its own uplink. */
export const PlatformCheckReport = z.strictObject({
  platform: PlatformId,
  reachable: z.boolean(),
  region: CountryCode.nullable().describe("The catalogue's country; null: not read."),
  verdict: z.enum(PLATFORM_CHECK_VERDICTS),
  checked_at: z
    .number()
    .int()
    .min(0)
    .describe("When the node checked, seconds since the epoch (the node's own clock)."),
});
export type PlatformCheckReport = z.infer<typeof PlatformCheckReport>;

/** At most this many platforms per heartbeat (the shipped table has seven). */
export const MAX_REPORTED_PLATFORMS = 64;

export const HeartbeatRequest = z.strictObject({
  load: z.number().min(0).max(10).describe('Current throughput / capacity.'),
  rx_bps: z.number().int().nonnegative(),
  tx_bps: z.number().int().nonnegative(),
  fresh_handshakes: z
    .array(
      z.strictObject({
        device_id: text(0, 64),
        latency_ms: z
          .number()
          .nonnegative()
          .max(60_000)
          .optional()
          .describe(
            "The node's round-trip time to the device through its tunnel, in ms, when measured (kept with the live session only).",
          ),
      }),
    )
    .max(100_000)
    .optional()
    .describe('Devices whose tunnel on this node had a handshake recently (kept in memory only).'),
  usage: z
    .array(z.strictObject({ device_id: text(0, 64), bytes: z.number().int().nonnegative() }))
    .max(100_000)
    .optional()
    .describe('Bytes carried per device since the last heartbeat, for the plan quota.'),
  degraded: z
    .array(z.enum(PROTOCOLS))
    .max(PROTOCOLS.length)
    .optional()
    .describe(
      'Data planes whose peer set the node cannot bring in line with the feed (peer updates failing). The node gets no new sessions of those protocols until a heartbeat no longer lists them; its current sessions stay.',
    ),
  platforms: z
    .array(PlatformCheckReport)
    .max(MAX_REPORTED_PLATFORMS)
    .optional()
    .describe(
      "The node's latest check of each streaming platform it checks (absent: it checks none). Node facts only: nothing about devices.",
    ),
});
export const HeartbeatResponse = z.object({
  feed_version: z.number().int(),
  healthy_for_seconds: z.number().int(),
  probe_key: Base64Key32.optional().describe(
    'The current probe key: the node switches to it when it changes (the key may be rotated).',
  ),
  check_platforms: z
    .boolean()
    .optional()
    .describe(
      'True: check every streaming platform now, not at the next scheduled time (an operator asked, or the control plane has no fresh result of the node).',
    ),
  forwards: z
    .array(
      z.object({
        port: z.number().int(),
        protocol: z.enum(['udp', 'tcp']),
        to_host: z.string(),
        to_port: z.number().int(),
      }),
    )
    .optional()
    .describe(
      "A node of an entry region: the ports it forwards to the other relays' tunnel ports (multihop), all of them each time; absent: none.",
    ),
});

export const PeersQuery = z.strictObject({
  after: queryInteger(0, Number.MAX_SAFE_INTEGER, 0),
  wait: queryInteger(0, 60, 0),
});
export const Peer = z
  .object({
    device_id: z.string(),
    op: z.enum(['upsert', 'remove']),
    wireguard_public_key: z.string().optional(),
    ferry_public_key: z.string().optional(),
    tunnel_ipv4: z.string().optional(),
    tunnel_ipv6: z.string().optional(),
    bandwidth_limit_mbps: z.number().int().nullable().optional(),
    data_cap_bytes: z.number().int().nullable().optional(),
  })
  .meta({ id: 'Peer' });
export type Peer = z.infer<typeof Peer>;
export const PeersResponse = z.object({
  version: z.number().int(),
  snapshot: z.boolean().describe('True: `peers` is the whole set; drop every peer not in it.'),
  peers: z
    .array(Peer)
    .describe('In a delta, a remove may name a peer the node never had; applying it is a no-op.'),
});
export type PeersResponse = z.infer<typeof PeersResponse>;

// ---- errors ---------------------------------------------------------------------------------

/** The control API's problem body: the shared members and the extras some codes carry. */
export const ControlProblem = z
  .object({
    ...PROBLEM_FIELDS,
    device_limit: z.number().int().optional().describe("device-limit: the plan's device limit."),
    devices: z
      .array(Device)
      .optional()
      .describe('device-limit: the devices of the account, to choose one to revoke.'),
    allowed_regions: z
      .array(z.string())
      .optional()
      .describe('region-not-in-plan: the regions the plan allows.'),
    tunnel_limit: z
      .number()
      .int()
      .optional()
      .describe('tunnel-limit: how many tunnels a device may hold.'),
    tunnels: z
      .array(z.string())
      .optional()
      .describe("tunnel-limit: the tags of the device's tunnels, to choose one to remove."),
    platform: z
      .string()
      .optional()
      .describe('platform-unverified: the platform asked for (its id in the table).'),
    verified_regions: z
      .array(z.string())
      .optional()
      .describe(
        "platform-unverified: the regions of the caller's plan where a node is verified for the platform now.",
      ),
  })
  .meta({ id: 'Problem' });
export type ControlProblem = z.infer<typeof ControlProblem>;
