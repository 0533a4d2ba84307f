// A round trip through a tunnel: one ICMP echo to the node's gateway address, sent on the tunnel
// interface itself (ping -I), timed by ping. WireGuard's proof of traffic and its latency readout.
// And a burst of echoes, whose share answered tells a throttled path from a quiet one.
import { GATEWAY_IPV4, TUNNEL_IPV4_CIDR, tunnelOffset } from '../../contracts/tunnel-addresses.js';
import type { ConnectResponse } from '../../contracts/control-api.js';
import { FerryError } from '../errors.js';
import { addressFamily, checkInterfaceName } from '../../platform/os/arguments.js';
import type { CommandRunner } from '../../platform/os/command.js';

/**
 * The node's address inside the tunnel. Every relay answers on the first address of the tunnel
 * block (its gateway and resolver); a device address outside that block means a service with
 * another plan, whose resolver (the answer's first DNS address) is then the gateway.
 */
export function gatewayOf(answer: Pick<ConnectResponse, 'tunnel'>): string {
  try {
    tunnelOffset(answer.tunnel.ipv4);
    return GATEWAY_IPV4;
  } catch {
    const dns = answer.tunnel.dns.find((a) => {
      try {
        return addressFamily(a) === 4;
      } catch {
        return false;
      }
    });
    if (dns === undefined)
      throw new FerryError(
        'tunnel-failed',
        `the tunnel address is outside ${TUNNEL_IPV4_CIDR} and the answer names no gateway`,
      );
    return dns;
  }
}

/** ping's argv: one echo, one second to answer, numeric, on the interface. */
export function pingArgs(interfaceName: string, gateway: string): string[] {
  checkInterfaceName(interfaceName);
  if (addressFamily(gateway, 'gateway') !== 4) throw new TypeError('the gateway is IPv4');
  return ['-n', '-c', '1', '-W', '1', '-I', interfaceName, gateway];
}

/** The round trip in ms from ping's output, or null when no echo came back. */
export function parsePingRtt(stdout: string): number | null {
  const m = /time[=<]\s*([\d.]+)\s*ms/.exec(stdout);
  if (!m) return null;
  const ms = Number(m[1]);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * One probe: the round trip in ms, or null when it went unanswered. Rejects only when ping
 * cannot be run at all (FerryError tunnel-failed).
 */
export async function probeRoundTrip(
  run: CommandRunner,
  interfaceName: string,
  gateway: string,
): Promise<number | null> {
  let out;
  try {
    out = await run('ping', pingArgs(interfaceName, gateway));
  } catch (e) {
    throw new FerryError(
      'tunnel-failed',
      'cannot run ping to measure the tunnel (Debian: the iputils-ping package)',
      { cause: e },
    );
  }
  return out.exitCode === 0 ? parsePingRtt(out.stdout) : null;
}

/** What a burst of echoes through the tunnel came back with. */
export interface BurstResult {
  sent: number;
  answered: number;
}

/** ping's argv for a burst: `count` echoes of `size` bytes 10 ms apart, 3 s at most, quiet. */
export function burstArgs(
  interfaceName: string,
  gateway: string,
  count: number,
  size: number,
): string[] {
  checkInterfaceName(interfaceName);
  if (addressFamily(gateway, 'gateway') !== 4) throw new TypeError('the gateway is IPv4');
  if (!(Number.isInteger(count) && count >= 1 && count <= 100))
    throw new TypeError('a burst is 1..100 echoes');
  if (!(Number.isInteger(size) && size >= 16 && size <= 1400))
    throw new TypeError('a burst echo is 16..1400 bytes');
  return [
    '-n',
    '-q',
    '-c',
    String(count),
    '-i',
    '0.01',
    '-s',
    String(size),
    '-W',
    '1',
    '-w',
    '3',
    '-I',
    interfaceName,
    gateway,
  ];
}

/** "20 packets transmitted, 7 received" from ping's summary, or null. */
export function parseBurst(stdout: string): BurstResult | null {
  const m = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(stdout);
  return m ? { sent: Number(m[1]), answered: Number(m[2]) } : null;
}

/**
 * A burst of echoes to the node through the tunnel (a few dozen kB, well within any path a user
 * would keep, far over a censor's trickle). Null when ping gave no summary.
 */
export async function burstThrough(
  run: CommandRunner,
  interfaceName: string,
  gateway: string,
  count: number,
  size: number,
): Promise<BurstResult | null> {
  const out = await run('ping', burstArgs(interfaceName, gateway, count, size));
  return parseBurst(out.stdout);
}
