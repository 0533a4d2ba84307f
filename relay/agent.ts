// The relay agent: keys, registration, the WireGuard interfaces and the Ferry server, NAT, the
// resolver on the gateway address, the peer feed and heartbeats (with the data planes' health,
// the latency to each device and the streaming-platform checks), the latency probe responder,
// and a clean teardown.
import type { Logger } from 'pino';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { createControlClient, type FetchLike, type PlatformTable } from '../contracts/index.js';
import type { ProbeFetch } from '../platform/probes/platform-probe.js';
import { trustContext } from '../platform/tls/trust-context.js';
import {
  DnsForwarder,
  deviceRanges,
  gatewayListenAddresses,
  type Upstream,
} from './dns/forwarder.js';
import { FerryLocalReplies } from './dns/ferry-replies.js';
import { FERRY_MARK, FerryServer } from './ferry/server.js';
import type { TlsTransportOptions } from './ferry/tls-options.js';
import { TlsTransport } from './ferry/tls-transport.js';
import { ApiRelay } from './ferry/api-relay.js';
import { RelayHealth, reasonOf } from './health.js';
import { loadOrCreateKey } from './keys.js';
import { RelayFirewall } from './nat/firewall.js';
import { resolveControlPlane, systemLookup } from './nat/control-plane-access.js';
import { HopForwards } from './nat/hop-forwards.js';
import { linuxRelayOs, type RelayOs } from './os.js';
import { PlatformChecker } from './platforms/platform-checker.js';
import { FeedFollower } from './sync/feed-follower.js';
import { peerTableSink } from './sync/feed-sink.js';
import { register } from './sync/registration.js';
import { HeartbeatReporter, type TrafficSource } from './sync/heartbeat.js';
import { probePortOf } from './probe/probe-port.js';
import { ProbeResponder } from './probe/responder.js';
import {
  DEFAULT_TUNNEL_LATENCY,
  TunnelLatency,
  measureInBackground,
  systemPing,
  type TunnelTarget,
} from './probe/tunnel-latency.js';
import { PeerTable } from './wireguard/peer-table.js';
import { WireGuardShards } from './wireguard/shards.js';

export interface RelayOptions {
  controlUrl: string;
  /** CA certificates (PEM) trusted for the control plane's https besides the system's. */
  controlCa?: string | undefined;
  nodeToken: string;
  wireguardPort: number;
  /** UDP (and TCP) port of the Ferry protocol server; none without it. */
  ferryPort?: number | undefined;
  uplink: string;
  stateDir: string;
  interfaceName: string;
  heartbeatSeconds?: number;
  peerIdleSeconds: number;
  /**
   * UDP port of the latency probe responder; undefined: the first port after the WireGuard
   * shards' (the WireGuard port + 64); null: no responder.
   */
  probePort?: number | null | undefined;
  /** Seconds between the relay's latency rounds through the tunnels; null: none. */
  tunnelLatencySeconds?: number | null | undefined;
  /**
   * Private networks (or networks on the uplink's subnets) devices may reach on purpose, in
   * canonical CIDR (parseAllowedNetwork); all others of those are closed to them.
   */
  allowedNetworks?: readonly string[] | undefined;
  /**
   * Where the resolver on the gateway address sends queries; none (or empty): no resolver.
   */
  dnsUpstreams?: readonly Upstream[] | undefined;
  /**
   * The streaming platforms the relay checks through its own uplink, and how often; null or
   * absent: none (its heartbeats then say nothing of platforms).
   */
  platformChecks?: { table: PlatformTable; intervalSeconds: number } | null | undefined;
  /** The TLS transport's port and cover site (checked: tlsTransportOptions); none without. */
  tls?: TlsTransportOptions | undefined;
  /** The OS effects (default: Linux's, linuxRelayOs()). */
  os?: RelayOs | undefined;
  log: Logger;
}

export interface RunningRelay {
  nodeId: string;
  interfaceName: string;
  feed: FeedFollower;
  peers: PeerTable;
  health: RelayHealth;
  /** Resolves when the relay has stopped on its own (wireguard-go died). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startRelay(o: RelayOptions): Promise<RunningRelay> {
  const log = o.log;
  const os = o.os ?? linuxRelayOs();
  const probePort = probePortOf(o);
  const stopping = new AbortController();
  const keys = loadOrCreateKey(o.stateDir, 'wireguard');
  const ferryKeys = o.ferryPort === undefined ? undefined : loadOrCreateKey(o.stateDir, 'ferry');
  // Node verifies the control plane's certificate and name, against the system's roots and
  // the configured CA, with one context for every connection (platform/tls).
  const controlPool =
    o.controlCa === undefined
      ? undefined
      : new Agent({ connect: { secureContext: trustContext(o.controlCa) } });
  const controlFetch: FetchLike = controlPool
    ? (url, init) =>
        undiciFetch(url, {
          ...(init as UndiciRequestInit),
          dispatcher: controlPool,
        }) as unknown as Promise<Response>
    : fetch;
  const client = createControlClient({
    baseUrl: o.controlUrl,
    fetch: controlFetch,
    token: () => o.nodeToken,
  });
  // Bound before the port is published, so that a port in use stops the relay before any
  // device is told to probe it; it drops everything until registration brings the key.
  const responder =
    probePort === null
      ? undefined
      : await ProbeResponder.start({ port: probePort, key: null, log });
  let tls: TlsTransport | undefined;
  let node;
  try {
    // The cover site is found before the port is published.
    if (o.tls) tls = await TlsTransport.prepare(o.tls, log, stopping.signal);
    node = await register(
      client,
      {
        wireguard_public_key: keys.publicKey,
        ferry_public_key: ferryKeys?.publicKey ?? null,
        probe_port: probePort,
        tls_port: o.tls?.port ?? null,
        tls_server_name: o.tls?.serverName ?? null,
      },
      log,
      stopping.signal,
    );
  } catch (e) {
    tls?.close();
    await responder?.close();
    throw e;
  }
  responder?.setKey(node.probe_key);
  log.info({ node: node.id, region: node.region }, 'registered');

  const health = new RelayHealth(log);
  let firewall: RelayFirewall | undefined;
  let shards: WireGuardShards | undefined;
  let ferry: FerryServer | undefined;
  let api: ApiRelay | undefined;
  let hops: HopForwards | undefined;
  let dns: DnsForwarder | undefined;
  let ferryReplies: FerryLocalReplies | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  // The platform checks' own connections (its own pool, closed with the relay).
  const platformPool = o.platformChecks ? new Agent({ connections: 2 }) : undefined;
  const teardown = async () => {
    stopping.abort();
    await platformPool?.destroy().catch(() => undefined);
    await controlPool?.destroy().catch(() => undefined);
    await responder?.close();
    await dns?.close();
    await ferryReplies?.close();
    await ferry?.close();
    api?.close();
    await hops?.close();
    tls?.close();
    await shards?.close();
    await firewall?.close();
  };
  try {
    // Devices reach the control plane through the relay; the firewall opens it where its
    // rules would close it to them. Looked up once: a name that does not resolve opens nothing.
    const controlPlane = await resolveControlPlane(o.controlUrl).catch((e: unknown) => {
      log.warn(
        { err: reasonOf(e) },
        "the control plane's address is unknown: if it runs on this host or in a private network, devices connected here cannot reach it",
      );
      return null;
    });
    firewall = await RelayFirewall.create(os, {
      table: `ferry_${o.interfaceName.replace(/[^A-Za-z0-9_]/g, '_')}`,
      uplink: o.uplink,
      ipv4Cidr: node.tunnel.ipv4_cidr,
      ipv6Cidr: node.tunnel.ipv6_cidr,
      probePort,
      controlPlane,
      allowedNetworks: o.allowedNetworks ?? [],
    });
    const fw = firewall;
    const opened = fw.controlPlane;
    if (opened && (opened.onHost === 'any' || opened.onHost.length + opened.beyond.length > 0))
      log.info({ controlPlane: opened }, 'devices reach the control plane through this relay');
    shards = new WireGuardShards({
      os,
      baseName: o.interfaceName,
      basePort: o.wireguardPort,
      privateKey: keys.privateKey,
      mtu: 1420,
      onInterface: (name) => fw.addTunnelInterface(name),
      onExit: (name, code) => {
        if (stopping.signal.aborted) return;
        log.error({ interface: name, code }, 'wireguard-go exited; stopping the relay');
        void teardown().then(resolveDone);
      },
    });
    // Shard 0 carries the gateway address: it is up before any peer arrives.
    await shards.get(0);
    if (o.ferryPort !== undefined && ferryKeys) {
      // API access through relays: a client that cannot reach the control plane reaches it
      // through the TLS port (with a control plane whose address is known).
      const target = controlPlane;
      if (tls && target) api = new ApiRelay({ target: () => target });
      ferry = await FerryServer.start({
        interfaceName: `${o.interfaceName}f`,
        listenPort: o.ferryPort,
        // TCP on the same port number, for networks that block UDP.
        tcpListenPort: o.ferryPort,
        tls: tls && {
          port: tls.options.port,
          onStranger: tls.onStranger,
          ...(api ? { onApiStream: api.onApiStream } : {}),
        },
        privateKey: ferryKeys.privateKey,
        firewall,
        health,
        os,
      });
    }
    // The gateway address exists from here on: it is on shard 0 and on the Ferry interface.
    if (o.dnsUpstreams?.length) {
      // Its answers to a Ferry device must not follow the device's address into WireGuard.
      if (ferry)
        ferryReplies = await FerryLocalReplies.create(
          os,
          `ferry_${o.interfaceName.replace(/[^A-Za-z0-9_]/g, '_')}_replies`,
          FERRY_MARK,
        );
      const listen = gatewayListenAddresses();
      dns = await DnsForwarder.start({
        listen,
        upstreams: o.dnsUpstreams,
        clients: deviceRanges(node.tunnel.ipv4_cidr, node.tunnel.ipv6_cidr),
        log,
      }).catch((e: unknown) => {
        throw new Error(`${(e as Error).message} (--no-dns runs the relay without it)`, {
          cause: e,
        });
      });
      log.info({ listen, upstreams: o.dnsUpstreams.length }, 'DNS resolver up');
    }
  } catch (e) {
    await teardown();
    throw e;
  }
  const wg = shards;
  const ferryServer = ferry;
  const peers = new PeerTable(async (k) => (await wg.get(k)).uapi, firewall, ferryServer?.peers);
  const feed = new FeedFollower(
    client,
    peerTableSink(peers, health, {
      ferry: ferryServer !== undefined,
      failClosed: (reason) => {
        if (stopping.signal.aborted) return;
        log.error({ reason }, 'revocations cannot be applied; stopping the relay');
        void teardown().then(resolveDone);
      },
    }),
    log,
  );
  const sources: TrafficSource[] = [
    {
      name: 'wireguard',
      read: async () =>
        (await wg.status()).peers.map((p) => ({
          key: p.publicKey,
          deviceId: peers.deviceOfKey(p.publicKey),
          rxBytes: p.rxBytes,
          txBytes: p.txBytes,
          lastHandshakeMs: p.lastHandshakeMs,
        })),
    },
  ];
  if (ferryServer) {
    sources.push({
      name: 'ferry',
      // Ferry clients send an encrypted keepalive every 5 s by default: three may go missing.
      minIdleMs: 15_000,
      read: async () => {
        const now = Date.now();
        return ferryServer.stats().map((s) => ({
          key: s.id,
          deviceId: s.id,
          rxBytes: s.rxBytes,
          txBytes: s.txBytes,
          lastHandshakeMs: s.handshakeAgeMs === null ? null : now - s.handshakeAgeMs,
        }));
      },
    });
  }
  // Stock WireGuard clients report no latency: the relay measures their tunnels itself. Ferry
  // devices are reached through policy routing, not by destination, and their clients report.
  const wireguardTargets = (ids: readonly string[]) =>
    ids.flatMap((id): TunnelTarget[] => {
      const entry = peers.entryOf(id);
      return entry ? [{ deviceId: id, address: entry.ipv4 }] : [];
    });
  const tunnelLatencySeconds =
    o.tunnelLatencySeconds === undefined
      ? DEFAULT_TUNNEL_LATENCY.intervalMs / 1000
      : o.tunnelLatencySeconds;
  const tunnelLatency: TunnelLatency | undefined =
    tunnelLatencySeconds === null
      ? undefined
      : new TunnelLatency({
          ...DEFAULT_TUNNEL_LATENCY,
          intervalMs: tunnelLatencySeconds * 1000,
          ping: systemPing,
          targets: () => wireguardTargets(heartbeat.freshDevices('wireguard')),
        });
  const platformFetch: ProbeFetch | undefined =
    platformPool &&
    ((url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher: platformPool,
      }) as unknown as Promise<Response>);
  const platforms =
    o.platformChecks && platformFetch
      ? new PlatformChecker({
          table: o.platformChecks.table,
          intervalMs: o.platformChecks.intervalSeconds * 1000,
          fetch: platformFetch,
          log,
        })
      : undefined;
  const heartbeat: HeartbeatReporter = new HeartbeatReporter(
    client,
    sources,
    {
      intervalMs: (o.heartbeatSeconds ?? node.heartbeat_seconds) * 1000,
      peerIdleMs: o.peerIdleSeconds * 1000,
      capacityMbps: node.capacity_mbps,
    },
    log,
    () => health.degraded(),
    {
      latencyOf: (id: string) => tunnelLatency?.latencyOf(id),
      onAnswer: (answer) => {
        if (answer.probe_key) responder?.setKey(answer.probe_key);
        if (answer.check_platforms) platforms?.requestRound();
        // Multihop: a relay of an entry region forwards to the other relays.
        if (answer.forwards !== undefined || hops) {
          hops ??= new HopForwards({
            firewall: os.firewall,
            table: `ferry_${o.interfaceName.replace(/[^A-Za-z0-9_]/g, '_')}_hops`,
            lookup: systemLookup,
          });
          hops
            .set(answer.forwards ?? [])
            .catch((e: unknown) =>
              log.warn({ err: reasonOf(e) }, 'the multihop forwards could not be put in force'),
            );
        }
      },
      // A tunnel's status says connected only with a latency: a new WireGuard tunnel is
      // measured at its first handshake, and the measurement reported at once.
      onNewTunnels: (plane, ids) => {
        if (plane !== 'wireguard' || !tunnelLatency) return;
        measureInBackground(
          tunnelLatency,
          wireguardTargets(ids),
          (answered) => {
            if (answered.length > 0 && !stopping.signal.aborted) heartbeat.beatSoon();
          },
          log,
        );
      },
      ...(platforms ? { platforms: () => platforms.results() } : {}),
    },
  );
  const loops = Promise.all([
    feed.run(stopping.signal),
    heartbeat.run(stopping.signal),
    tunnelLatency?.run(stopping.signal),
    platforms?.run(stopping.signal),
  ]);
  log.info(
    {
      interface: o.interfaceName,
      port: o.wireguardPort,
      ferryPort: o.ferryPort ?? null,
      tls: o.tls
        ? { port: o.tls.port, cover: o.tls.cover.host, serverName: o.tls.serverName }
        : null,
      probePort,
      platformChecks: o.platformChecks
        ? {
            platforms: Object.keys(o.platformChecks.table).length,
            every: o.platformChecks.intervalSeconds,
          }
        : null,
    },
    'relay up',
  );

  return {
    nodeId: node.id,
    interfaceName: o.interfaceName,
    feed,
    peers,
    health,
    done,
    async stop() {
      await teardown();
      await loops;
      resolveDone();
    },
  };
}
