// The test kit of the protection tests (kill switch, split tunnel, DNS, failover, obfuscation,
// network changes): a laptop with IPv6 running netcli daemon, two relays of one region (a region
// rule over them), a DNS authority the relays resolve through, a domestic web server and the
// laptop's own address mapped to the home country, foreign probe targets; and the leak watch on
// the laptop's eth0 with the peers a protected laptop may talk to.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDnsAuthority, TEST_ZONE, WHOAMI_ZONE, type DnsAuthority } from './dns-authority.js';
import {
  LINK_SCOPE_CIDRS,
  PROBE_HTTP_PORT,
  leakSummary,
  leaksOf,
  packetsSince,
  startLeakWatch,
  startProbeTargets,
  type AllowedPeers,
  type LeakWatch,
  type LeakWatchResult,
  type ProbeTargets,
} from './leak-watch.js';
import { startCoverSite } from './censor/cover-site.js';
import { NetcliHost } from './netcli-host.js';
import { Testbed, type RelayHandle } from './testbed.js';

/** The relays' TLS transport port, when the bed has one (ProtectionBedOptions.tls). */
export const TLS_PORT = 8443;

/** The laptop's home country (the --geoip-file maps its address and the domestic server there). */
export const HOME = 'DE';
const WG_PORT = 51820;
const FERRY_PORT = 51900;
/** The relays' latency probe responders (the WireGuard port + 64, the relay's default). */
export const PROBE_PORT = WG_PORT + 64;
const CONTROL_PORT = 8080;
/** A name served at home: the domestic server's. */
export const DOMESTIC_NAME = `domestic.${TEST_ZONE}`;

export interface ProtectionBedOptions {
  /** Extra options of netcli daemon. */
  daemonArgs?: readonly string[];
  /** The relays serve the TLS transport too (on TLS_PORT, a real nginx as their cover site). */
  tls?: boolean;
}

export class ProtectionBed {
  private constructor(
    readonly bed: Testbed,
    readonly laptop: NetcliHost,
    readonly relays: readonly RelayHandle[],
    readonly authority: DnsAuthority,
    readonly domestic: { address: string; url: string },
    readonly foreign: ProbeTargets,
  ) {}

  static async start(opts: ProtectionBedOptions = {}): Promise<ProtectionBed> {
    const bed = await Testbed.start({ controlPlaneOn: 'servers' });
    try {
      const net = bed.net;
      const authority = await startDnsAuthority(bed, 'dns', {
        wildcard: '192.0.2.53',
        whoamiZone: WHOAMI_ZONE,
      });
      net.addServerHost('abroad', { ipv6: true });
      const foreign = await startProbeTargets(net, 'abroad');
      // The control plane names the DNS leak test's zone and a service reachable over IPv6
      // (netcli diagnose's leak checks): it starts again with them, before any relay joins.
      bed.controlPlaneArgs = [
        '--dns-leak-zone',
        WHOAMI_ZONE,
        // netcli diagnose's domestic names check: a name the authority answers with the
        // domestic server (at home).
        '--domestic-name',
        `${HOME}=${DOMESTIC_NAME}`,
        '--ipv6-probe',
        `[${net.host('abroad').address6}]:${PROBE_HTTP_PORT}`,
      ];
      await bed.stopControlPlane();
      await bed.startControlPlane();
      const cover = opts.tls ? await startCoverSite(net, { serverName: 'cover.example' }) : null;
      const tls = cover ? { tls: { port: TLS_PORT, cover } } : {};
      const relays = [
        await bed.addRelay('tokyo', 'asia-east', {
          ferry: true,
          dnsUpstream: authority.address,
          ...tls,
        }),
        await bed.addRelay('osaka', 'asia-east', {
          ferry: true,
          dnsUpstream: authority.address,
          ...tls,
        }),
      ];
      const domestic = await bed.startEcho('domestic');
      authority.setRecord(DOMESTIC_NAME, domestic.address);
      const geoip = path.join(net.dir, 'geoip.csv');
      const laptop = await NetcliHost.start(bed, 'laptop', {
        ipv6: true,
        daemonArgs: ['--geoip-file', geoip, ...(opts.daemonArgs ?? [])],
        prepare: (address) => {
          // The laptop's address (the one the service sees) and the domestic server are at
          // home; the authority too, so that a query sent to it directly would go the direct way.
          writeFileSync(
            geoip,
            [
              `# the test internet's home country (${HOME})`,
              `${address}/32,${HOME}`,
              `${domestic.address}/32,${HOME}`,
              `${authority.address}/32,${HOME}`,
              '',
            ].join('\n'),
          );
          // Before the tunnel, the laptop resolves through the authority directly (its ISP's).
          net.setEtcFile('laptop', 'resolv.conf', `nameserver ${authority.address}\n`);
        },
      });
      return new ProtectionBed(bed, laptop, relays, authority, domestic, foreign);
    } catch (e) {
      await bed.stop();
      throw e;
    }
  }

  /** init, account create and a region rule `work` over both relays. */
  setUp(): void {
    this.laptop.human('init', '--protocol', 'wireguard', ...this.bed.endpointArgs());
    this.laptop.human('account', 'create', '--device-name', 'laptop');
    this.laptop.human('region', 'add', '--area', 'asia', '--name', 'work');
  }

  relay(address: string): RelayHandle {
    const r = this.relays.find((x) => x.address === address);
    if (!r) throw new Error(`no relay at ${address}`);
    return r;
  }

  /** The relay the laptop's tunnel goes to now (from netcli status). */
  currentRelay(): RelayHandle {
    const status = this.laptop.json('status');
    const endpoint = status.node?.endpoint as string | undefined;
    if (!endpoint) throw new Error(`not connected: ${JSON.stringify(status)}`);
    return this.relay(endpoint.slice(0, endpoint.lastIndexOf(':')));
  }

  /** The laptop's resolv.conf, as its processes see it. */
  resolvConf(): string {
    return this.bed.net.exec('laptop', ['cat', '/etc/resolv.conf']);
  }

  /** Continuous traffic of every kind from the laptop to the foreign targets, eth0 captured. */
  watch(maxSeconds = 90): Promise<LeakWatch> {
    return startLeakWatch(this.bed.net, 'laptop', {
      ...this.foreign.targets,
      domain: TEST_ZONE,
      maxSeconds,
    });
  }

  /**
   * Who a protected laptop may exchange packets with on eth0: the relays' tunnel endpoints and
   * latency probe responders (of `relays`, default every relay: a failover moves from one to
   * the other), the control plane, the home resolver's port 53 (the engine's resolver asks it
   * for names at home), the domestic server, and link-scope chatter.
   */
  allowed(result: LeakWatchResult, relays: readonly RelayHandle[] = this.relays): AllowedPeers {
    return {
      endpoints: [
        ...relays.flatMap((r) => [
          { address: r.address, port: WG_PORT, protocol: 'udp' as const },
          { address: r.address, port: FERRY_PORT, protocol: 'udp' as const },
          { address: r.address, port: FERRY_PORT, protocol: 'tcp' as const },
          ...(r.tls ? [{ address: r.address, port: r.tls.port, protocol: 'tcp' as const }] : []),
        ]),
        // The engine's own latency probes (authenticated), to the relays given only: while
        // connected no probe leaves for another node (it would give the tunnel away).
        ...relays.map((r) => ({
          address: r.address,
          port: PROBE_PORT,
          protocol: 'udp' as const,
        })),
        { address: this.bed.net.host('ctrl').address, port: CONTROL_PORT, protocol: 'tcp' },
        // The engine's resolver asking the home network's (the authority, the laptop's ISP's)
        // for names at home: the only DNS that may leave outside the tunnel.
        { address: this.authority.address, port: 53, protocol: 'udp' },
        { address: this.authority.address, port: 53, protocol: 'tcp' },
      ],
      cidrs: [`${this.domestic.address}/32`, ...LINK_SCOPE_CIDRS],
      self: result.self,
    };
  }

  /**
   * The leaks of a watch's capture, as lines for an assertion message: of the packets from
   * `since` (epoch ms) on, when given; `also`: peers this case lets out besides (a split rule's).
   */
  leaks(
    result: LeakWatchResult,
    relays?: readonly RelayHandle[],
    since?: number,
    also: Pick<AllowedPeers, 'endpoints' | 'cidrs'> = {},
  ): string[] {
    const packets = since === undefined ? result.packets : packetsSince(result, since);
    const allowed = this.allowed(result, relays);
    return leakSummary(
      leaksOf(packets, {
        ...allowed,
        endpoints: [...(allowed.endpoints ?? []), ...(also.endpoints ?? [])],
        cidrs: [...(allowed.cidrs ?? []), ...(also.cidrs ?? [])],
      }),
    );
  }

  /**
   * Lifts every path fault and waits until both relays count as healthy again: a relay cut off
   * from the control plane misses heartbeats, and is a candidate again only with its next one.
   */
  async heal(): Promise<void> {
    this.bed.net.restore();
    await this.bed.relaysHealthy();
  }

  /** Waits until the kill switch is in force, and says since when (epoch ms). */
  async killSwitchActive(timeoutMs = 10_000): Promise<number> {
    await this.bed.net.waitFor('the kill switch', timeoutMs, () =>
      this.laptop.json('status').protection?.kill_switch === 'active' ? true : undefined,
    );
    return Date.now();
  }

  /**
   * A "container" behind the laptop, as Docker or a VM makes one: a namespace on a veth of its
   * own, the laptop forwarding and masquerading its traffic out of eth0 (a table of its own, as
   * Docker's). remove() takes the veth and the table away again.
   */
  addContainer(name = 'container'): Container {
    const net = this.bed.net;
    net.addIsolatedHost(name);
    const link = net.link('laptop', name);
    net.exec(name, ['ip', 'route', 'add', 'default', 'via', link.a.address]);
    net.exec('laptop', ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    const table = `fy${net.id}nat`;
    net.exec(
      'laptop',
      ['nft', '-f', '-'],
      `table ip ${table} {\n chain post {\n  type nat hook postrouting priority 100; policy accept;\n` +
        `  ip saddr ${link.subnet} oifname "eth0" masquerade\n }\n}\n`,
    );
    return {
      host: name,
      address: link.b.address,
      remove: () => {
        net.exec('laptop', ['nft', 'delete', 'table', 'ip', table]);
        net.exec('laptop', ['ip', 'link', 'delete', link.a.dev]);
      },
    };
  }

  async stop(): Promise<void> {
    await this.laptop.stop();
    await this.bed.stop();
  }
}

/** A namespace behind the laptop whose traffic the laptop forwards (see addContainer). */
export interface Container {
  host: string;
  address: string;
  remove(): void;
}
