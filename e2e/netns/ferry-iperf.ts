// One iperf3 run between two hosts of a TestNetwork and what its --json report says, for the
// Ferry namespace tests and the tunnel benchmarks (scripts/bench) alike.
import { setTimeout as sleep } from 'node:timers/promises';

import { SERVER_TUNNEL } from './ferry-process.js';
import type { TestNetwork } from './test-network.js';

/** The port the iperf3 server listens on. */
export const IPERF_PORT = 5201;
/** How long the iperf3 server gets to listen before the client connects. */
const SERVER_START_MS = 500;

/** What the tests and benchmarks read of an iperf3 --json report. */
export interface IperfReport {
  end?: { sum_received?: { bits_per_second: number } };
  intervals?: { sum: { bytes: number; seconds: number } }[];
  error?: string;
}

export interface IperfPath {
  /** The host that runs the (one-off) iperf3 server, and the one that runs the client. */
  server: string;
  client: string;
  /** The address the server binds: SERVER_TUNNEL (across a FerryPair's tunnel) unless given. */
  bind?: string;
  /** Where the client connects: the bound address and IPERF_PORT unless given (a port forward). */
  target?: string;
  port?: number;
}

export interface IperfRun {
  /** The client's exit code: 0 when the run completed. */
  code: number | null;
  /** Its report; when it printed none that parses, only an `error` that says what it printed. */
  report: IperfReport;
}

/** One iperf3 run (client -> server unless args say -R), with its report. */
export async function runIperf(
  net: TestNetwork,
  path: IperfPath,
  args: readonly string[],
): Promise<IperfRun> {
  const bind = path.bind ?? SERVER_TUNNEL;
  const server = net.spawn(path.server, 'iperf3 server', [
    'iperf3',
    '-s',
    '-1',
    '-B',
    bind,
    '-p',
    String(IPERF_PORT),
  ]);
  await sleep(SERVER_START_MS);
  const client = net.spawn(path.client, 'iperf3 client', [
    'iperf3',
    '-c',
    path.target ?? bind,
    '-p',
    String(path.port ?? IPERF_PORT),
    '--json',
    ...args,
  ]);
  // The report alone (stdout), without anything iperf3 says on stderr.
  let out = '';
  client.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await client.exited;
  await server.stop();
  return { code, report: parseIperfReport(out) };
}

function parseIperfReport(out: string): IperfReport {
  try {
    return JSON.parse(out) as IperfReport;
  } catch {
    return { error: `no iperf3 report in its output: ${JSON.stringify(out.slice(0, 500))}` };
  }
}

/** The throughput the server received, in bit/s: 0 when the report has none (a failed run). */
export function receivedBitsPerSecond(report: IperfReport): number {
  return report.end?.sum_received?.bits_per_second ?? 0;
}
