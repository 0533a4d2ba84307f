// The censor's profiles and options (issue 20's table; docs/censorship.md says what each models
// and cites), shared by the test-side kit (censor.ts) and the inspector process.

/** What a censor does to the path (issue 20): any tunnel's traffic meets these. */
export const BORDER_PROFILES = [
  'udp-block',
  'udp-throttle',
  'fet',
  'sni-block',
  'prober',
  'tls-fingerprint',
  'tcp-budget',
  'port-block',
] as const;

/** What a censor does to the service itself (issue 21): all but allowed prefixes, its own name. */
export const SERVICE_PROFILES = ['allowlist', 'service-block'] as const;

export const PROFILES = [...BORDER_PROFILES, ...SERVICE_PROFILES] as const;

export type Profile = (typeof PROFILES)[number];

/** The profiles whose decisions need the userspace inspector (the rest are nftables rules). */
export const INSPECTED: readonly Profile[] = [
  'fet',
  'sni-block',
  'prober',
  'tls-fingerprint',
  'tcp-budget',
  'service-block',
];

export interface CensorOptions {
  profiles: readonly Profile[];
  /** The home prefixes (IPv4 CIDRs); every other address is foreign. Default: the home subnet. */
  home?: readonly string[];
  /** tcp-budget: the hosting prefixes whose connections stall after `tcpBudgetBytes`. */
  hosting?: readonly string[];
  /** tcp-budget: server names exempt from the budget (a name matches itself and its subdomains). */
  sniAllow?: readonly string[];
  /** sni-block: blocked server names (a name matches itself and its subdomains). */
  sniBlock?: readonly string[];
  /** tls-fingerprint: the JA4 fingerprints let through. */
  ja4Allow?: readonly string[];
  /** port-block: the port dropped toward every foreign address. */
  port?: { protocol: 'tcp' | 'udp'; port: number };
  /** allowlist: the foreign prefixes (IPv4 CIDRs) that still answer; every other is dropped. */
  allow?: readonly string[];
  /**
   * service-block: the VPN service's control plane, blocked by address (dropped both ways) and
   * by name (its TLS hellos reset, its QUIC Initials dropped, DNS answers for it forged).
   */
  service?: { addresses: readonly string[]; names: readonly string[] };
  /** fet: how long a flagged (client, server, port) is dropped (the GFW: 180 s). */
  fetBlockSeconds?: number;
  /** udp-throttle: a UDP flow's seconds at full speed, then its rate (kbit/s, both ways). */
  udpGraceSeconds?: number;
  udpRateKbit?: number;
  /** tcp-budget: bytes from the server before a connection stalls (16 KB measured in Russia). */
  tcpBudgetBytes?: number;
  /** sni-block: the address forged DNS answers give blocked names. */
  forgedAddress?: string;
  /**
   * prober: where the real server of a name is (`host:port`), to compare a probed endpoint's
   * answers with. A name not here is looked up at `realResolver` when given (the censor
   * resolving it itself; the real server on the probed port). An endpoint with no real server to
   * compare with (no name, or none found) must answer some probe, as every web server does.
   */
  realServers?: Readonly<Record<string, string>>;
  /** prober: a DNS server (`address` or `address:port`) the censor resolves names with. */
  realResolver?: string;
  /** prober: how long a probe waits for an answer. */
  probeTimeoutMs?: number;
}

export interface Settings {
  profiles: Profile[];
  home: string[];
  hosting: string[];
  sniAllow: string[];
  sniBlock: string[];
  ja4Allow: string[];
  port: { protocol: 'tcp' | 'udp'; port: number } | undefined;
  allow: string[];
  service: { addresses: string[]; names: string[] };
  fetBlockSeconds: number;
  udpGraceSeconds: number;
  udpRateKbit: number;
  tcpBudgetBytes: number;
  forgedAddress: string;
  realServers: Record<string, string>;
  realResolver: string | undefined;
  probeTimeoutMs: number;
  /** The NFQUEUE number the inspector reads. */
  queue: number;
}

/** Options with their defaults filled in. */
export function settings(o: CensorOptions, homeSubnet: string, queue: number): Settings {
  for (const p of o.profiles)
    if (!PROFILES.includes(p)) throw new Error(`censor: no profile ${String(p)}`);
  if (o.profiles.includes('port-block') && !o.port)
    throw new Error('censor: port-block needs a port');
  if (o.profiles.includes('service-block') && !o.service)
    throw new Error('censor: service-block needs the service (addresses and names)');
  return {
    profiles: [...o.profiles],
    home: [...(o.home ?? [homeSubnet])],
    hosting: [...(o.hosting ?? [])],
    sniAllow: [...(o.sniAllow ?? [])],
    sniBlock: [...(o.sniBlock ?? [])],
    ja4Allow: [...(o.ja4Allow ?? [])],
    port: o.port,
    allow: [...(o.allow ?? [])],
    service: {
      addresses: [...(o.service?.addresses ?? [])],
      names: [...(o.service?.names ?? [])],
    },
    fetBlockSeconds: o.fetBlockSeconds ?? 180,
    udpGraceSeconds: o.udpGraceSeconds ?? 10,
    udpRateKbit: o.udpRateKbit ?? 64,
    tcpBudgetBytes: o.tcpBudgetBytes ?? 16_384,
    forgedAddress: o.forgedAddress ?? '198.51.100.66',
    realServers: { ...(o.realServers ?? {}) },
    realResolver: o.realResolver,
    probeTimeoutMs: o.probeTimeoutMs ?? 3000,
    queue,
  };
}

/** Whether `name` is one of `names` or a subdomain of one (letter case ignored). */
export function nameMatches(name: string | undefined, names: readonly string[]): boolean {
  if (name === undefined) return false;
  const n = name.toLowerCase().replace(/\.$/, '');
  return names.some((x) => {
    const m = x.toLowerCase().replace(/\.$/, '');
    return n === m || n.endsWith(`.${m}`);
  });
}

/** Connection marks: the inspector's verdicts set them, the enforcing chain acts on them. */
export const MARK = {
  /** Decided: the connection's packets are not queued any more. */
  done: 0x1,
  /** tcp-budget: the server name is allowlisted. */
  sniAllowed: 0x2,
  /** Reset: every later packet of the connection is answered with a TCP RST. */
  reset: 0x4,
  /** Dropped: every later packet of the connection is dropped. */
  drop: 0x8,
  /** fet: (client, server, port) goes into the timed block set. */
  fetFlag: 0x10,
  /** On a packet (never a connection): to be queued to the inspector. */
  queue: 0x100,
} as const;
