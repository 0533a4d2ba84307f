// The engine as a host runs it (netcli daemon, Electron main): the real OS seams, the native
// data plane, the control plane's transport, split tunneling's data; the native addon is loaded
// here, only by hosts.
import path from 'node:path';

import { createControlClient } from '../contracts/index.js';
import { readRelayListFile } from './api-access/relay-lists.js';
import { udpRetryWaits } from './connection/transport-watch.js';
import { Engine } from './engine.js';
import { GeoSplitTunnel } from './split/split-tunnel.js';
import { loadPlatformTable } from './stream-test.js';

/**
 * The engine as a host runs it: the control plane over the network, the real tunnel manager
 * (Linux links and routes, wireguard-go, the native Ferry data plane), started (leftovers of a
 * crash removed). The native addon is loaded here, only by hosts.
 */
export async function createEngine(opts: {
  stateDir: string;
  /** Lines `cidr,country` that take precedence over the shipped IP-to-country data. */
  geoipFile?: string | undefined;
  /** Platform entries that add to or replace the shipped table (netcli daemon --platforms-file). */
  platformsFile?: string | undefined;
  /** The transport watch's first wait before UDP is tried again (netcli daemon --udp-retry-after). */
  udpRetryAfterSeconds?: number | undefined;
  /** A saved GET /relay-list body that replaces the shipped list (netcli daemon --relay-list). */
  relayListFile?: string | undefined;
  /** The service's public key that replaces the shipped one (netcli daemon --service-key). */
  serviceKey?: string | undefined;
}): Promise<Engine> {
  const platforms = await loadPlatformTable(opts.platformsFile);
  // A --relay-list that cannot be read stops the start, naming the file.
  const relayList =
    opts.relayListFile === undefined && opts.serviceKey === undefined
      ? undefined
      : {
          list:
            opts.relayListFile === undefined ? undefined : readRelayListFile(opts.relayListFile),
          key: opts.serviceKey,
        };
  const [
    { nativeDataPlane },
    { createTunnelManager },
    { LinuxLinks },
    { LinuxRoutes },
    { createControlTransport },
    { NftFirewall },
    { LinuxSysctl },
    { ResolvConfResolver },
    { ResolvedResolver, usesSystemdResolved },
    { IpMonitorWatch },
    { LinuxNetworkIdentity },
    { LinuxAppCgroups },
    { AppTable },
    { PROXY_ADDRESS, PROGRAM_RESOLVERS },
  ] = await Promise.all([
    import('../native/index.js'),
    import('./tunnel/manager.js'),
    import('../platform/os/links.js'),
    import('../platform/os/routes.js'),
    import('./control-transport.js'),
    import('../platform/os/nftables.js'),
    import('../platform/os/sysctl.js'),
    import('./os/resolv-conf.js'),
    import('./os/resolved.js'),
    import('./os/network-watch.js'),
    import('../platform/os/network-identity.js'),
    import('./os/app-cgroups.js'),
    import('./protection/app-table.js'),
    import('./dns/dns-proxy.js'),
  ]);
  const transport = createControlTransport();
  const os = {
    links: new LinuxLinks(),
    routes: new LinuxRoutes(),
    firewall: new NftFirewall(),
    sysctl: new LinuxSysctl(),
    resolver: usesSystemdResolved()
      ? new ResolvedResolver()
      : new ResolvConfResolver({ savedFile: path.join(opts.stateDir, 'resolv.conf.saved') }),
  };
  const tunnels = createTunnelManager({ os, dataPlane: nativeDataPlane });
  const split = new GeoSplitTunnel({ overridesFile: opts.geoipFile });
  // A --geoip-file with a mistake stops the start, naming the line (not the first connect).
  if (opts.geoipFile !== undefined) split.describe();
  const engine = new Engine({
    os,
    split,
    resolverProxy: {},
    apps: {
      cgroups: new LinuxAppCgroups(opts.stateDir),
      table: new AppTable(undefined, { system: PROXY_ADDRESS, ...PROGRAM_RESOLVERS }),
    },
    networkWatch: new IpMonitorWatch(),
    networkIdentity: new LinuxNetworkIdentity(),
    stateDir: opts.stateDir,
    fetch: transport.fetch,
    resetConnections: () => transport.reset(),
    trustServiceCa: (pem) => transport.trust(pem),
    useControlRoute: (route) => transport.useRoute(route),
    // api-access test/use: one route alone, on a transport of its own (nothing pooled is reused).
    probeControl: async (route, config) => {
      const own = createControlTransport({ route, ca: config.service_ca });
      try {
        await createControlClient({
          baseUrl: config.service!,
          fetch: own.fetch,
          timeoutMs: 25_000,
        }).health();
      } finally {
        await own.close();
      }
    },
    ...(relayList ? { relayList } : {}),
    tunnels,
    ferryKeys: nativeDataPlane,
    platforms,
    ...(opts.udpRetryAfterSeconds !== undefined
      ? { transportWatch: { retryUdpMs: udpRetryWaits(opts.udpRetryAfterSeconds) } }
      : {}),
  });
  await engine.start();
  return engine;
}
