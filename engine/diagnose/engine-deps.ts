// The diagnostics' dependencies from the engine's own parts: its control client, the guard and
// the table in force, the connection (its node, interface, transport and exit address), its
// latency measurements, the host's probes. The engine hands over what it has; this decides what
// each check asks of it.
import { isIP } from 'node:net';
import {
  createControlClient,
  type ClientConfig,
  type ConnectResponse,
  type FetchLike,
  type LocalStatus,
  type Transport,
} from '../../contracts/index.js';
import type { OsEffects } from '../os/effects.js';
import type { ConnectionGuard } from '../protection/connection-guard.js';
import { PROTECTION_TABLE, type Endpoint } from '../protection/firewall-policy.js';
import { FERRY_FWMARK } from '../tunnel/names.js';
import { gatewayOf } from '../tunnel/probe.js';
import { SELF_CHECK_ZONE } from '../dns/messages.js';
import { hostProbes, type HostProbes } from './host-probes.js';
import type { NodeTarget, NoNode } from './node-reach.js';
import type { DiagnoseDeps } from './run.js';

export interface DiagnoseSources {
  status: LocalStatus;
  config: ClientConfig;
  /** The control plane's transport. */
  fetch: FetchLike;
  /** This device's token (undefined: not signed in). */
  token: () => Promise<string | undefined>;
  /** The connection, while a tunnel carries traffic (null: none does). */
  connection: {
    answer: ConnectResponse;
    interfaceName: string;
    transport: Transport;
  } | null;
  /** The address the service saw through the tunnel (null: not measured). */
  exitAfter: string | null;
  /** The smoothed latency per node id, from the engine's probes. */
  latencies: Readonly<Record<string, number>>;
  guard: ConnectionGuard;
  os: Pick<OsEffects, 'firewall' | 'links'>;
  /** A host's addresses (the engine's cache of them: the kill switch may block DNS). */
  resolveHost(host: string): Promise<string[]>;
  /** What the split tunnel's data is (null: unknown). */
  split: (() => { dataset: string; homeRanges: number | null }) | null;
  /** The host's probes (default: the real ones). */
  probes?: Partial<HostProbes> | undefined;
  /** What got through on the network the host is on now (the transport autopilot's memory). */
  rememberedTransport: () => Promise<Transport | null>;
  /** The split by country's home and its question (null: it does not split now). */
  home: { country: string; isHome: (address: string) => boolean } | null;
  /** The engine's resolver in use (its address), null when the system resolver is not it. */
  resolver: string | null;
}

const CONTROL_TIMEOUT_MS = 4_000;
const TCP_TIMEOUT_MS = 2_000;
const LOOKUP_TIMEOUT_MS = 3_000;

const endpointKey = (e: Endpoint) => `${e.protocol} ${e.address} ${e.port}`;

/** A host's address (IPv4 first); null when none came within the lookup's time. */
async function addressOf(s: DiagnoseSources, host: string): Promise<string | null> {
  if (isIP(host) !== 0) return host;
  let timer: NodeJS.Timeout | undefined;
  // A lookup the kill switch blocks waits out the resolver's timeouts: not for this long.
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([s.resolveHost(host).catch(() => []), late]);
    return addresses.find((a) => isIP(a) === 4) ?? addresses[0] ?? null;
  } finally {
    clearTimeout(timer);
  }
}

/** The node a connect would pick: the healthy allowed one measured fastest, else the first. */
export async function nodeToProbe(
  s: DiagnoseSources,
  signal: AbortSignal,
): Promise<NodeTarget | NoNode> {
  if (s.config.service === null)
    return { none: 'no control plane is configured', finding: 'no-service' };
  if (!s.status.signed_in)
    return {
      none: 'this device is not signed in: no node list to pick from',
      finding: 'signed-out',
    };
  const control = createControlClient({
    baseUrl: s.config.service,
    fetch: s.fetch,
    token: s.token,
    timeoutMs: CONTROL_TIMEOUT_MS,
  });
  let candidates;
  try {
    const [{ regions }, { nodes }] = await Promise.all([
      control.listRegions({ signal }),
      control.listNodes({ signal }),
    ]);
    const allowed = new Set(regions.filter((r) => r.allowed).map((r) => r.id));
    candidates = nodes.filter((n) => n.healthy && allowed.has(n.region));
  } catch {
    signal.throwIfAborted();
    return { none: 'the control plane did not list the nodes', finding: 'no-node-list' };
  }
  const ms = (id: string) => s.latencies[id] ?? Infinity;
  const node = [...candidates].sort((a, b) => ms(a.id) - ms(b.id))[0];
  if (!node)
    return { none: 'the control plane lists no healthy node your plan allows', finding: 'no-node' };
  const address = await addressOf(s, node.endpoint_host);
  if (address === null)
    return {
      none: `the address of ${node.id} could not be looked up`,
      finding: 'no-address',
      params: { node: node.id },
    };
  return {
    id: node.id,
    region: node.region,
    address,
    probe: node.probe,
    ferryPort: node.ferry_port,
  };
}

export async function diagnoseDeps(s: DiagnoseSources): Promise<DiagnoseDeps> {
  const probes: HostProbes = { ...hostProbes(), ...s.probes };
  const c = s.connection;
  const connected = c !== null;
  const nodeAddress = c ? await addressOf(s, c.answer.node.endpoint_host) : null;
  const link = c ? await s.os.links.get(c.interfaceName).catch(() => null) : null;
  let gateway: string | null = null;
  try {
    gateway = c ? gatewayOf(c.answer) : null;
  } catch {
    // An answer that names no gateway: there is nothing to ping through the tunnel.
  }
  /** The TCP endpoints the diagnostics let through a kill switch that holds, to take back after. */
  const opened: Endpoint[] = [];
  return {
    engine: { state: s.status.status, nodeId: s.status.node?.id ?? null },
    apiAccess: s.status.api_access,
    control: { service: s.config.service, fetch: s.fetch, timeoutMs: CONTROL_TIMEOUT_MS },
    censorship: {
      status: s.status,
      obfuscation: s.config.obfuscation,
      remembered: s.rememberedTransport,
    },
    node: {
      tunnel: c
        ? {
            nodeId: c.answer.node.id,
            transport: c.transport,
            notices: s.status.notices.map((n) => n.code),
          }
        : null,
      node: (signal) => nodeToProbe(s, signal),
      async allow(target) {
        if (!s.guard.policy?.block) return true;
        // Disconnected under lockdown the guard lets no probe out (engine/protection).
        if (s.guard.facts.stage === 'off') return false;
        const wanted: Endpoint[] = [
          ...(target.probe
            ? [{ address: target.address, port: target.probe.port, protocol: 'udp' as const }]
            : []),
          ...(target.ferryPort !== null
            ? [{ address: target.address, port: target.ferryPort, protocol: 'tcp' as const }]
            : []),
        ];
        const known = new Set(s.guard.facts.probes.map(endpointKey));
        const added = wanted.filter((e) => !known.has(endpointKey(e)));
        if (added.length > 0) {
          await s.guard.update({ probes: [...s.guard.facts.probes, ...added] });
          opened.push(...added.filter((e) => e.protocol === 'tcp'));
        }
        return true;
      },
      // The latency probes stay let out (as latency-check leaves them); the TCP hole goes.
      async release() {
        if (opened.length === 0) return;
        const gone = new Set(opened.splice(0).map(endpointKey));
        await s.guard
          .update({ probes: s.guard.facts.probes.filter((p) => !gone.has(endpointKey(p))) })
          .catch(() => undefined);
      },
      probeUdp: (target, signal) => probes.probeUdp(target, signal),
      // The engine's own probe of the node: marked, as the probes are (let out by the mark).
      connectTcp: (address, port, signal) =>
        probes.connectTcp(address, port, TCP_TIMEOUT_MS, signal, { mark: FERRY_FWMARK }),
    },
    dns: {
      connected,
      expected: [s.exitAfter, nodeAddress].filter((a): a is string => a !== null),
      configured: s.config.dns === 'auto' ? null : s.config.dns,
      lookup: (name, signal) => probes.lookupIpv4(name, LOOKUP_TIMEOUT_MS, signal),
    },
    ipv6: {
      connected,
      routeOutside: (address) => probes.ipv6RouteOutside(address),
      connectTcp: (address, port, signal) =>
        probes.connectTcp(address, port, TCP_TIMEOUT_MS, signal),
      blocksIpv6: s.guard.policy?.blockIpv6 ?? false,
    },
    mtu: {
      tunnel:
        c && gateway !== null
          ? { interfaceName: c.interfaceName, gateway, mtu: link?.mtu ?? c.answer.tunnel.mtu }
          : null,
      ping: (payload) => probes.ping(c!.interfaceName, gateway!, payload),
    },
    killSwitch: {
      setting: s.config.kill_switch,
      lockdown: s.config.lockdown,
      stage: s.guard.facts.stage,
      policy: s.guard.policy,
      inspect: () => s.os.firewall.inspect(PROTECTION_TABLE),
    },
    domesticDns: {
      connected,
      home: s.home?.country ?? null,
      isHome: s.home?.isHome ?? null,
      resolver: s.resolver === null ? null : { address: s.resolver, zone: SELF_CHECK_ZONE },
      lookup: (name, signal) => probes.lookupIpv4(name, LOOKUP_TIMEOUT_MS, signal),
    },
    split: {
      protection: s.status.protection,
      setting: s.config.split,
      active: s.guard.facts.stage !== 'off',
      describe: () => {
        try {
          return s.split?.() ?? null;
        } catch {
          return null;
        }
      },
    },
  };
}
