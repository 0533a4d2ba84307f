// The diagnostics' probes of this host's network, for real: a TCP connect, a lookup through the
// system resolver (getaddrinfo, as apps do), the IPv6 route the kernel would take, pings with
// Don't Fragment through a tunnel, and the authenticated UDP latency probe. Nothing of what
// they send or get is logged.
import { lookup } from 'node:dns/promises';
import { createConnection, isIP, type Socket } from 'node:net';

import { addressFamily, checkInterfaceName } from '../../platform/os/arguments.js';
import { runCommand, type CommandRunner } from '../../platform/os/command.js';
import { connectMarkedTcp } from '../os/marked-socket.js';
import { probeNode } from '../probes/index.js';
import { TUNNEL_INTERFACE_PREFIX } from '../tunnel/names.js';
import type { NodeTarget, TcpOutcome } from './node-reach.js';

export interface HostProbes {
  /**
   * A TCP connect within `timeoutMs`; how it ended. Rejects only when `signal` aborts. With
   * `mark`, from a socket that carries it (the node check: the kill switch lets the engine's
   * probes out by the tunnel sockets' mark, and they go around the tunnel as the tunnel does).
   */
  connectTcp(
    address: string,
    port: number,
    timeoutMs: number,
    signal: AbortSignal,
    opts?: { mark?: number },
  ): Promise<TcpOutcome>;
  /** The system resolver's IPv4 addresses for `name`; rejects when it gave none in time. */
  lookupIpv4(name: string, timeoutMs: number, signal: AbortSignal): Promise<string[]>;
  /** Whether IPv6 to `address` would leave by a route outside the tunnels. */
  ipv6RouteOutside(address: string): Promise<boolean>;
  /** One or two pings of `payload` bytes with DF set through `interfaceName`: any answer. */
  ping(interfaceName: string, gateway: string, payload: number): Promise<boolean>;
  /** The node's authenticated UDP probe: the average round trip in ms, null when none answered. */
  probeUdp(target: NodeTarget, signal: AbortSignal): Promise<number | null>;
}

/** How a failed connect ended, from its errno. */
export function tcpOutcomeOf(code: string | undefined): Exclude<TcpOutcome, 'connected'> {
  switch (code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
      return 'refused';
    case 'EPERM':
    case 'EACCES':
      return 'blocked';
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return 'unreachable';
  }
}

export function connectTcp(
  address: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
  opts: { mark?: number } = {},
): Promise<TcpOutcome> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    let socket: Socket | null = null;
    let done = false;
    // Aborted when the check is over: a marked socket still connecting is closed with it.
    const connecting = new AbortController();
    const finish = (outcome: TcpOutcome | { error: unknown }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      connecting.abort();
      socket?.destroy();
      if (typeof outcome === 'string') resolve(outcome);
      else reject(outcome.error);
    };
    const onAbort = () => finish({ error: signal.reason });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    if (opts.mark !== undefined) {
      // A socket that cannot be marked is an error of this host, not the node's.
      connectMarkedTcp(address, port, opts.mark, undefined, connecting.signal).then(
        (s) => {
          socket = s;
          if (done) s.destroy();
          else finish('connected');
        },
        (e: NodeJS.ErrnoException) =>
          e.code === 'ERR_FERRY_MARK' ? finish({ error: e }) : finish(tcpOutcomeOf(e.code)),
      );
      return;
    }
    const plain = createConnection({ host: address, port, family: addressFamily(address) });
    socket = plain;
    plain.once('connect', () => finish('connected'));
    plain.once('error', (e: NodeJS.ErrnoException) => finish(tcpOutcomeOf(e.code)));
  });
}

export async function lookupIpv4(
  name: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string[]> {
  signal.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), timeoutMs);
  });
  try {
    // getaddrinfo cannot be stopped; a late answer is simply not waited for.
    const found = await Promise.race([lookup(name, { family: 4, all: true }), late]);
    return found.map((a) => a.address).filter((a) => isIP(a) === 4);
  } finally {
    clearTimeout(timer);
  }
}

/** ping's argv: DF set, `payload` bytes, two tries 0.2 s apart, a second for each answer. */
export function pingSizeArgs(interfaceName: string, gateway: string, payload: number): string[] {
  checkInterfaceName(interfaceName);
  if (addressFamily(gateway, 'gateway') !== 4) throw new TypeError('the gateway is IPv4');
  if (!Number.isInteger(payload) || payload < 0 || payload > 65507)
    throw new TypeError('a ping payload is 0..65507 bytes');
  return [
    '-n',
    '-M',
    'do',
    '-c',
    '2',
    '-i',
    '0.2',
    '-W',
    '1',
    '-s',
    String(payload),
    '-I',
    interfaceName,
    gateway,
  ];
}

/** From `ip -6 -j route get`'s answer: whether it leaves by a device that is not a tunnel. */
export function leavesOutsideTunnels(routes: readonly { dev?: string; type?: string }[]): boolean {
  const r = routes[0];
  if (!r || !r.dev || (r.type !== undefined && r.type !== 'unicast')) return false;
  return !r.dev.startsWith(TUNNEL_INTERFACE_PREFIX) && r.dev !== 'lo';
}

export function hostProbes(run: CommandRunner = runCommand): HostProbes {
  return {
    connectTcp,
    lookupIpv4,
    async ipv6RouteOutside(address) {
      if (addressFamily(address) !== 6) throw new TypeError('an IPv6 address');
      const out = await run('ip', ['-6', '-j', 'route', 'get', address]).catch(() => null);
      // No route (network unreachable), or no ip at all: nothing can leave by it.
      if (!out || out.exitCode !== 0) return false;
      try {
        return leavesOutsideTunnels(JSON.parse(out.stdout) as { dev?: string; type?: string }[]);
      } catch {
        return false;
      }
    },
    async ping(interfaceName, gateway, payload) {
      const out = await run('ping', pingSizeArgs(interfaceName, gateway, payload));
      return out.exitCode === 0;
    },
    async probeUdp(target, signal) {
      if (!target.probe) return null;
      const r = await probeNode(
        {
          id: target.id,
          region: target.region,
          host: target.address,
          port: target.probe.port,
          key: target.probe.key,
        },
        { count: 3, timeoutMs: 1_000, intervalMs: 200, signal },
      );
      return r.avg_ms;
    },
  };
}
