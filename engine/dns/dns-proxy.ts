// The engine's resolver on the host while connected: a DNS server on a loopback address of its
// own (UDP and TCP 53), which the system resolver points at, answering as SplitResolver decides.
// Its questions to the home network's resolver leave from marked sockets (RESOLVER_FWMARK), the
// only DNS the kill switch lets out around the tunnel.
import { pino, type Logger } from 'pino';

import type { SplitRule, SplitVia } from '../../contracts/index.js';
import { DnsServer } from '../../platform/dns/dns-server.js';
import { PLAIN_SOCKETS, type ExchangeSockets } from '../../platform/dns/exchange.js';
import { UpstreamSet } from '../../platform/dns/upstream-set.js';
import {
  connectMarkedTcp,
  markedUdpSocket,
  openMarkedSocket,
  type MarkedSocketOpener,
} from '../os/marked-socket.js';
import { RESOLVER_FWMARK } from '../protection/firewall-policy.js';
import { clientAsk, isSelfCheck, selfAnswer } from './messages.js';
import { SplitResolver, type ResolverRoutes, type RuleSets } from './split-resolver.js';

/**
 * Where the engine's resolver listens: a loopback address no other resolver takes (systemd-
 * resolved has 127.0.0.53 and 127.0.0.54, dnsmasq and others 127.0.0.1), "fy" in its middle.
 */
export const PROXY_ADDRESS = '127.102.121.53';

/**
 * Where the programs on a way ask (netcli exec, split rules by program): their questions to
 * PROXY_ADDRESS are sent here by the programs' table (a DNAT), so that a `direct` program's names
 * are asked at home and a `tunnel` program's through the tunnel only.
 */
export const PROGRAM_RESOLVERS = { direct: '127.102.121.54', tunnel: '127.102.121.55' } as const;

/** A question's whole budget: the tunnel's resolver, then the home network's, with room to spare. */
const QUERY_TIMEOUT_MS = 5_000;

export interface DnsProxyOptions {
  /** Where to listen (PROXY_ADDRESS, 53 by default; tests take a port of their own). */
  address?: string;
  port?: number;
  /** Where the programs on a way are answered (PROGRAM_RESOLVERS by default; null: nowhere). */
  programs?: Readonly<Record<SplitVia, string>> | null;
  /** How sockets to the home network's resolver are marked (the native addon's by default). */
  openMarked?: MarkedSocketOpener;
  log?: Logger;
}

/** What the resolver asks where: addresses of the tunnel's and the home network's resolvers. */
export interface ProxyRoutes {
  tunnel: readonly string[];
  home: readonly string[];
  isHome: ResolverRoutes['isHome'];
}

/** The home network's resolvers are reached from sockets that carry RESOLVER_FWMARK. */
function markedSockets(open: MarkedSocketOpener): ExchangeSockets {
  return {
    udp: (family) => markedUdpSocket(family, RESOLVER_FWMARK, open),
    tcp: (address, port, signal) => connectMarkedTcp(address, port, RESOLVER_FWMARK, open, signal),
  };
}

/** Where nothing is asked: before the first connect and after a disconnect. */
const NO_ROUTES: ResolverRoutes = {
  tunnel: { ask: async () => ({ kind: 'failed' }) },
  home: null,
  isHome: null,
};

const upstreams = (addresses: readonly string[]) =>
  addresses.map((address) => ({ address, port: 53 }));

export class DnsProxy {
  #servers: DnsServer[] = [];
  readonly #resolver: SplitResolver;
  readonly #homeSockets: ExchangeSockets;

  constructor(
    ruleSets: RuleSets,
    private readonly opts: DnsProxyOptions = {},
  ) {
    this.#homeSockets = markedSockets(opts.openMarked ?? openMarkedSocket);
    this.#resolver = new SplitResolver(NO_ROUTES, ruleSets);
  }

  /** The address the system resolver is pointed at. */
  get address(): string {
    return this.opts.address ?? PROXY_ADDRESS;
  }

  /**
   * Starts answering (if it is not yet) with `routes`; an address taken by another program
   * rejects, and the caller points the system resolver at the tunnel's resolvers instead.
   */
  async use(routes: ProxyRoutes): Promise<void> {
    if (routes.tunnel.length === 0)
      throw new Error('the engine\u2019s resolver needs the tunnel\u2019s resolver');
    this.#resolver.setRoutes({
      tunnel: new UpstreamSet(upstreams(routes.tunnel), PLAIN_SOCKETS),
      home:
        routes.home.length > 0 ? new UpstreamSet(upstreams(routes.home), this.#homeSockets) : null,
      isHome: routes.isHome,
    });
    if (this.#servers.length > 0) return;
    const programs = this.opts.programs === undefined ? PROGRAM_RESOLVERS : this.opts.programs;
    const listeners: [string, SplitVia | null][] = [
      [this.address, null],
      ...(programs
        ? (Object.entries(programs) as [SplitVia, string][]).map(
            ([via, a]) => [a, via] as [string, SplitVia],
          )
        : []),
    ];
    try {
      for (const [address, program] of listeners)
        this.#servers.push(await this.serve(address, program));
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  private serve(address: string, program: SplitVia | null): Promise<DnsServer> {
    return DnsServer.start({
      listen: [address],
      port: this.opts.port ?? 53,
      answer: async (query, transport, signal) =>
        isSelfCheck(query.question.name)
          ? selfAnswer(clientAsk(query), this.address)
          : this.#resolver.answer(query, transport, signal, program),
      // Loopback only: every program of this host is one client, with no bound of its own.
      log: this.opts.log ?? pino({ level: 'silent' }),
      timeoutMs: QUERY_TIMEOUT_MS,
      maxInFlight: 1_024,
      maxTcpConnections: 128,
      tcpIdleMs: 10_000,
      tcpMaxLifetimeMs: 60_000,
      maxQueriesPerConnection: 32,
      bindAttempts: 1,
      bindRetryMs: 0,
    });
  }

  setRules(rules: readonly SplitRule[]): void {
    this.#resolver.setRules(rules);
  }

  /** Stops answering and forgets every answer. */
  async stop(): Promise<void> {
    const servers = this.#servers.splice(0);
    this.#resolver.setRoutes(NO_ROUTES);
    await Promise.all(servers.map((server) => server.close()));
  }
}
