// What the engine is made of from outside: its state dir, the control plane's transport, the
// tunnel manager and the OS seams, and the knobs tests turn (time limits, names, probes).
import type { DnsProxyOptions } from './dns/dns-proxy.js';
import type { AppSplitDeps } from './split/app-split.js';
import type { DeviceKind, FetchLike, PlatformTable, SignedRelayList } from '../contracts/index.js';
import type { MethodOpeners, StreamRoute } from './api-access/api-access.js';
import type { ProbeControl } from './api-access/commands.js';
import type { ShippedRelayList } from './api-access/relay-lists.js';
import type { HostProbes } from './diagnose/host-probes.js';
import type { LookupAll } from './host-addresses.js';
import type { FerryKeys } from './key-store.js';
import type { OsEffects } from './os/effects.js';
import type { Datagrams } from './probes/index.js';
import type { NetworkWatch } from './os/network-watch.js';
import type { NetworkIdentityReader } from '../platform/os/network-identity.js';
import type { RecoveryTiming } from './connection/recovery.js';
import type { TransportWatchTiming } from './connection/transport-watch.js';
import type { ResolveIpv4 } from './services.js';
import type { SplitTunnelSource } from './split/split-tunnel.js';
import type { TunnelManager } from './tunnel/tunnel.js';

export interface EngineDeps {
  stateDir: string;
  /** The control plane's transport (global fetch in a host; a fake or app.inject in tests). */
  fetch: FetchLike;
  /** Whether a node's endpoint is this machine (default: its interfaces' addresses). */
  isThisMachine?: (host: string) => Promise<boolean>;
  /** Drops the transport's pooled connections: called whenever a tunnel came or went. */
  resetConnections?: () => void;
  /**
   * The CA certificates (PEM) the transport trusts for the control plane besides the system's
   * (null: the system's only); told before each call, so a change of the setting holds at once.
   */
  trustServiceCa?: (pem: string | null) => void;
  tunnels: TunnelManager;
  /** Key generation for the Ferry keys (the native data plane, or its fake). */
  ferryKeys: FerryKeys;
  /** A fresh interface name for each tunnel (default: tunnelInterfaceName('main')). */
  interfaceName?: () => string;
  /** The name a new sign-in gives this device (default: the host name). */
  deviceName?: () => string;
  deviceKind?: DeviceKind;
  /** Time limit of a control-plane call (default 25 s). */
  controlTimeoutMs?: number;
  /** Time limit of the exit-address checks before and after the tunnel (default 4 s). */
  exitCheckTimeoutMs?: number;
  /** The streaming platforms stream-test knows (default: the shipped table). */
  platforms?: PlatformTable;
  /** Time limit of one stream-test's probe (default 10 s). */
  streamProbeTimeoutMs?: number;
  /** A domain's IPv4 addresses, for service tunnels (default: the system resolver). */
  resolveIpv4?: ResolveIpv4;
  /** A fresh interface name for a service tunnel's tag (default: tunnelInterfaceName(tag)). */
  serviceInterfaceName?: (tag: string) => string;
  /**
   * The OS seams of the protections: the kill switch's nftables table, the split tunnel's
   * policy rule and kernel setting, the system resolver, and the links (the LAN's subnets).
   */
  os: Pick<OsEffects, 'firewall' | 'routes' | 'links' | 'resolver' | 'sysctl'>;
  /** Split tunneling's data (none: split auto tunnels everything, with a notice). */
  split?: SplitTunnelSource;
  /**
   * The engine's resolver (a DNS proxy on loopback) while connected: the split by DNS and the
   * split rules by domain. Absent (unit tests): the system resolver asks the tunnel's resolver.
   */
  resolverProxy?: DnsProxyOptions;
  /** Programs on one way (split rules by program, netcli exec). Absent: not supported here. */
  apps?: AppSplitDeps;
  /** Host names' addresses (the control plane's, a node's); default: the system resolver. */
  lookupHost?: LookupAll;
  /** How long UDP gets under obfuscation auto before TCP is tried (default UDP_ATTEMPT_MS). */
  udpAttemptMs?: number;
  /** The pauses of failover's attempts. */
  recovery?: Partial<RecoveryTiming>;
  /** The transport autopilot's watch while connected (throttled UDP, UDP tried again). */
  transportWatch?: Partial<TransportWatchTiming>;
  /** Changes of the host's network (default: none are watched). */
  networkWatch?: NetworkWatch;
  /**
   * Which network the host is on, for the transport autopilot's memory (default: none is
   * named, nothing is remembered).
   */
  networkIdentity?: NetworkIdentityReader;
  /** The latency probes' UDP sockets (default: the engine's marked sockets; a fake in tests). */
  datagrams?: Datagrams;
  /**
   * Sets how the control transport reaches the control plane (API access's route); a host's
   * transport takes it, tests with a fake fetch leave it out.
   */
  useControlRoute?: (route: StreamRoute) => void;
  /** Reaches the service by one route on a connection of its own (api-access test and use). */
  probeControl?: ProbeControl;
  /** How API access methods open their streams (default: the engine's marked sockets). */
  apiOpeners?: MethodOpeners;
  /** The relay list and service key shipped with the client (default: shipped-relay-list.json). */
  shippedRelayList?: ShippedRelayList;
  /** `netcli daemon --relay-list FILE --service-key BASE64`: they replace the shipped ones. */
  relayList?: { list?: SignedRelayList | undefined; key?: string | undefined };
  /** The diagnostics' probes of the host's network (default: the real ones). */
  diagnoseProbes?: Partial<HostProbes>;
}
