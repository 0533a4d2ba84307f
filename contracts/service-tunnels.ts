// Destination sets (named networks and domains: what netcli, the local API's JSON and the error
// codes call a "service") and the service tunnels that carry them: the shipped sets
// (services.json, data to update), the checks of what a user types (`netcli service add --cidr
// --domain`), and the local API's shapes for both. In code a destination set is never a
// "service": that word is the control plane's URL (client-config.ts's ServiceUrl). No I/O here.
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { RegionSetting } from './client-config.js';
import { TunnelTag } from './control-api.js';
import shippedServices from './services.json' with { type: 'json' };
import { ENCRYPTIONS, PROTOCOLS, caseInsensitiveEnum } from './values.js';

/** A service's name: what `--service` takes; any letter case, kept in lower case. */
export const DestinationSetName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9-]{1,31}$/, 'a letter, then letters, digits and dashes (2-32 in all)')
  .transform((s) => s.toLowerCase());

/** How many networks and domains one service may hold (each becomes routes). */
export const MAX_SERVICE_CIDRS = 256;
export const MAX_SERVICE_DOMAINS = 64;

export const CIDR_HELP =
  'an IPv4 or IPv6 network in CIDR notation, e.g. 203.0.113.0/24 or 2001:db8::/32 (one address alone is taken as /32 or /128)';

/** Ranges a tunnel cannot carry for a service: they never leave this host, or are not unicast. */
const NOT_ROUTABLE = new Set([
  'unspecified',
  'loopback',
  'multicast',
  'broadcast',
  'linkLocal',
  'ipv4Mapped',
]);

export type CidrCheck = { ok: true; cidr: string } | { ok: false; message: string };

/**
 * A network as typed, in its canonical form (`203.0.113.0/24`, `2001:db8::/32`); an address
 * alone is one host. Refused, with the reason: anything else, a prefix with host bits set (the
 * network is named), every address (/0), and ranges that do not leave this host.
 */
export function parseDestinationCidr(input: string): CidrCheck {
  const text = input.trim();
  const bad = (why: string): CidrCheck => ({ ok: false, message: why });
  const parts = text.split('/');
  if (parts.length > 2 || !parts[0]) return bad('not a network');
  const [addressText, prefixText] = parts as [string, string | undefined];
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (
    addressText.includes(':') &&
    !addressText.includes('%') &&
    ipaddr.IPv6.isValid(addressText)
  )
    address = ipaddr.IPv6.parse(addressText);
  else return bad('not an IPv4 or IPv6 address');
  const max = address.kind() === 'ipv4' ? 32 : 128;
  let bits = max;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max)
      return bad(`the prefix length is a number from 1 to ${max}`);
    bits = Number(prefixText);
  }
  if (bits === 0)
    return bad('a service cannot take every address (/0): netcli connect makes a full tunnel');
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  if (network.toString() !== address.toString())
    return bad(
      'it has host bits set beyond its prefix: give the network’s own address (10.20.0.0/16, not 10.20.1.5/16)',
    );
  const range = network.range();
  if (NOT_ROUTABLE.has(range))
    return bad(`it is in the ${range} range, which a tunnel does not carry`);
  return { ok: true, cidr: `${network.toString()}/${bits}` };
}

/** A network of a service, checked and made canonical (see parseDestinationCidr). */
export const DestinationCidr = z
  .string()
  .max(64)
  .transform((s, ctx) => {
    const r = parseDestinationCidr(s);
    if (r.ok) return r.cidr;
    ctx.addIssue({ code: 'custom', message: `${r.message}; give ${CIDR_HELP}` });
    return z.NEVER;
  });

const LABEL = '(?!-)[A-Za-z0-9-]{1,63}(?<!-)';
const DOMAIN = new RegExp(
  `^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*\\.(?=[A-Za-z0-9-]*[A-Za-z])${LABEL}$`,
);

/** A domain name of a service (resolved when a tunnel starts); kept in lower case. */
export const DestinationDomain = z
  .string()
  .regex(DOMAIN, 'a domain name such as intranet.example.com (letters, digits, dashes, dots)')
  .transform((s) => s.toLowerCase());

/** A destination set (netcli's "service"): the networks and domains its tunnels carry. */
export const DestinationSet = z
  .object({
    name: z.string(),
    builtin: z.boolean().describe('Shipped with Ferry (services.json); cannot be replaced.'),
    description: z.string().nullable(),
    cidrs: z.array(z.string()),
    domains: z.array(z.string()).describe('Resolved to IPv4 addresses when a tunnel starts.'),
  })
  // The local API's document keeps the name its users know.
  .meta({ id: 'Service' });
export type DestinationSet = z.infer<typeof DestinationSet>;

export const DestinationSetsResponse = z.object({ services: z.array(DestinationSet) });

export const AddDestinationSetRequest = z
  .strictObject({
    name: DestinationSetName,
    cidrs: z.array(DestinationCidr).max(MAX_SERVICE_CIDRS).default([]),
    domains: z.array(DestinationDomain).max(MAX_SERVICE_DOMAINS).default([]),
  })
  .refine((s) => s.cidrs.length + s.domains.length > 0, {
    message: 'a service needs at least one network (--cidr) or domain (--domain)',
  })
  .meta({ minProperties: 2 });
export type AddDestinationSetRequest = z.output<typeof AddDestinationSetRequest>;

export const DestinationSetParams = z.strictObject({ name: DestinationSetName });

/** The services Ferry ships: name -> definition, checked against the same rules as a user's. */
const ShippedServices = z.strictObject({
  about: z.string(),
  services: z.record(
    DestinationSetName,
    z.strictObject({
      description: z.string(),
      cidrs: z.array(DestinationCidr),
      domains: z.array(DestinationDomain),
    }),
  ),
});

export const BUILTIN_DESTINATION_SETS: readonly DestinationSet[] = Object.freeze(
  Object.entries(ShippedServices.parse(shippedServices).services).map(([name, s]) =>
    Object.freeze({ name, builtin: true, ...s }),
  ),
);

// ---- service tunnels ----------------------------------------------------------------------------

export const StartTunnelRequest = z.strictObject({
  service: DestinationSetName,
  tag: TunnelTag,
  region: RegionSetting.optional(),
  protocol: caseInsensitiveEnum(PROTOCOLS).optional(),
});
export type StartTunnelRequest = z.output<typeof StartTunnelRequest>;

export const TunnelTagParams = z.strictObject({ tag: TunnelTag });

/** A running service tunnel. Its destinations are counted, never listed (they are resolved). */
export const ServiceTunnel = z
  .object({
    tag: z.string(),
    service: z.string(),
    status: z
      .enum(['connected', 'lost'])
      .describe('lost: its node stopped answering (it comes back by itself when the node does).'),
    region: z.string(),
    node: z.object({
      id: z.string(),
      region: z.string(),
      endpoint: z.string().describe('host:port of the node, as the tunnel uses it'),
    }),
    protocol: z.enum(PROTOCOLS),
    cipher: z.enum(ENCRYPTIONS),
    transport: z.enum(['udp', 'tcp']),
    latency: z
      .string()
      .regex(/^\d+(\.\d+)?ms$/)
      .nullable(),
    interface: z.string(),
    tunnel_ipv4: z.string().describe("The tunnel's own address (not the device's)."),
    destinations: z.number().int().describe('How many networks and addresses it routes.'),
  })
  .meta({ id: 'ServiceTunnel' });
export type ServiceTunnel = z.infer<typeof ServiceTunnel>;

export const ServiceTunnelsResponse = z.object({ tunnels: z.array(ServiceTunnel) });

export const StopTunnelResponse = z.object({
  tag: z.string(),
  service: z.string(),
  unregistered: z
    .boolean()
    .describe(
      'Whether the control plane removed the tunnel (false: it could not be told; the next start of this tag on this host takes the registration over).',
    ),
});
export type StopTunnelResponse = z.infer<typeof StopTunnelResponse>;
