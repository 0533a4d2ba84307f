// The relay's DNS resolver on its tunnel gateway address: a forwarder that passes each
// well-formed query to the node's upstream resolvers over UDP or TCP (as the client asked) and
// relays the answer, within bounds per device (see ClientLimits) and for all. Who asked what is
// held in memory only while a query is in flight, a device's address only while its bounds need
// it, and neither is ever logged or counted per client (the no-logs rule): the counters are
// aggregates.
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { GATEWAY_IPV4, GATEWAY_IPV6 } from '../../contracts/index.js';
import {
  DnsServer,
  type DnsServerCounters,
  type Listening,
} from '../../platform/dns/dns-server.js';
import type { Upstream } from '../../platform/dns/exchange.js';
import { UpstreamSet } from '../../platform/dns/upstream-set.js';
import { SWEEP_MS } from '../rate/token-buckets.js';
import { ClientLimits } from './client-limits.js';

export type { Listening } from '../../platform/dns/dns-server.js';
export type { Upstream } from '../../platform/dns/exchange.js';
export { parseQuery } from '../../platform/dns/wire.js';

export interface DnsForwarderOptions {
  /** Addresses to serve on, UDP and TCP each (a relay's gateway addresses). */
  listen: readonly string[];
  /** 53 on a relay; 0 (tests) lets each socket pick a free port. */
  port?: number;
  /** Tried in turn, starting with the last one that answered. */
  upstreams: readonly Upstream[];
  /**
   * The sources served (a relay's device ranges); others are dropped: the gateway address is
   * reachable from the uplink's neighbours too, and the relay is no open resolver. All if unset.
   */
  clients?: net.BlockList;
  log: Logger;
  /** A query's whole budget across the upstreams; the client gets SERVFAIL after it. */
  timeoutMs?: number;
  /**
   * Queries waiting for an upstream at once, of all devices; more are dropped (the client
   * retries). The last line: each device has its own bounds below it.
   */
  maxInFlight?: number;
  maxTcpConnections?: number;
  /** Queries of one device (a source address) waiting for an upstream at once. */
  maxInFlightPerClient?: number;
  /** Queries one device may send per second on average, and in a burst; more are dropped. */
  clientQueriesPerSecond?: number;
  clientBurst?: number;
  /** TCP connections of one device at once; more are closed as they come. */
  maxTcpConnectionsPerClient?: number;
  /** Devices whose bounds are tracked at once; a new one beyond them is refused. */
  maxClients?: number;
  /** A TCP connection with no traffic for this long is closed (RFC 7766 6.2.3). */
  tcpIdleMs?: number;
  /** Every TCP connection is closed this long after it opened, however busy it is. */
  tcpMaxLifetimeMs?: number;
  /** Queries one TCP connection may have in flight before it is read no further. */
  maxQueriesPerConnection?: number;
  /**
   * Binding retries while a listen address is not there yet (EADDRNOTAVAIL): an interface may
   * still be coming up, or an IPv6 address may still be tentative.
   */
  bindAttempts?: number;
  bindRetryMs?: number;
}

/**
 * Well-formed queries taken; upstream answers relayed; queries answered with SERVFAIL because no
 * upstream answered in time; datagrams and messages dropped (not a query, or over a bound).
 */
export type DnsCounters = DnsServerCounters;

export const DNS_DEFAULTS = {
  port: 53,
  timeoutMs: 4_000,
  maxInFlight: 4_096,
  maxTcpConnections: 256,
  maxInFlightPerClient: 128,
  clientQueriesPerSecond: 100,
  clientBurst: 200,
  maxTcpConnectionsPerClient: 8,
  maxClients: 1 << 20,
  tcpIdleMs: 10_000,
  tcpMaxLifetimeMs: 60_000,
  maxQueriesPerConnection: 32,
  bindAttempts: 30,
  bindRetryMs: 100,
} as const;

/** Where a relay serves: the IPv4 gateway, and the IPv6 one where the host has IPv6 up. */
export function gatewayListenAddresses(): string[] {
  const hasV6 = Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((a) => a.family === 'IPv6' && a.address === GATEWAY_IPV6),
  );
  return hasV6 ? [GATEWAY_IPV4, GATEWAY_IPV6] : [GATEWAY_IPV4];
}

/** The device ranges of a node (`10.64.0.0/10`, `fd66:6572:7279::/48`) as the sources to serve. */
export function deviceRanges(ipv4Cidr: string, ipv6Cidr: string): net.BlockList {
  const list = new net.BlockList();
  for (const [cidr, family] of [
    [ipv4Cidr, 'ipv4'],
    [ipv6Cidr, 'ipv6'],
  ] as const) {
    const [address, prefix] = cidr.split('/');
    list.addSubnet(address!, Number(prefix), family);
  }
  return list;
}

/**
 * The relay's resolver: a DnsServer whose answers come from the node's upstreams, within bounds
 * per device (ClientLimits). Contract: one instance per process owns its sockets; `close()` ends
 * every query in flight without an answer and releases every socket and timer.
 */
export class DnsForwarder {
  private constructor(private readonly server: DnsServer) {}

  static async start(o: DnsForwarderOptions): Promise<DnsForwarder> {
    const upstreams = new UpstreamSet(o.upstreams);
    const timeoutMs = o.timeoutMs ?? DNS_DEFAULTS.timeoutMs;
    const limits = new ClientLimits({
      maxInFlight: o.maxInFlightPerClient ?? DNS_DEFAULTS.maxInFlightPerClient,
      queriesPerSecond: o.clientQueriesPerSecond ?? DNS_DEFAULTS.clientQueriesPerSecond,
      burst: o.clientBurst ?? DNS_DEFAULTS.clientBurst,
      maxTcpConnections: o.maxTcpConnectionsPerClient ?? DNS_DEFAULTS.maxTcpConnectionsPerClient,
      maxClients: o.maxClients ?? DNS_DEFAULTS.maxClients,
    });
    const server = await DnsServer.start({
      listen: o.listen,
      port: o.port ?? DNS_DEFAULTS.port,
      answer: async (query, transport, signal) => {
        const r = await upstreams.ask(query, transport, timeoutMs, signal);
        return r.kind === 'answer' ? r.answer : null;
      },
      ...(o.clients ? { clients: o.clients } : {}),
      bounds: limits,
      sweepMs: SWEEP_MS,
      log: o.log,
      timeoutMs,
      maxInFlight: o.maxInFlight ?? DNS_DEFAULTS.maxInFlight,
      maxTcpConnections: o.maxTcpConnections ?? DNS_DEFAULTS.maxTcpConnections,
      tcpIdleMs: o.tcpIdleMs ?? DNS_DEFAULTS.tcpIdleMs,
      tcpMaxLifetimeMs: o.tcpMaxLifetimeMs ?? DNS_DEFAULTS.tcpMaxLifetimeMs,
      maxQueriesPerConnection: o.maxQueriesPerConnection ?? DNS_DEFAULTS.maxQueriesPerConnection,
      bindAttempts: o.bindAttempts ?? DNS_DEFAULTS.bindAttempts,
      bindRetryMs: o.bindRetryMs ?? DNS_DEFAULTS.bindRetryMs,
    });
    return new DnsForwarder(server);
  }

  listening(): Listening[] {
    return this.server.listening();
  }

  counters(): DnsCounters {
    return this.server.counters();
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
