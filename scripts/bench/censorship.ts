// Censorship benchmark: per censor profile, how long `netcli connect` takes until traffic flows
// (on a network the transport autopilot has not seen, and then from what it remembered), the
// transport it ends up on and why, and the tunnel's throughput.
//
// Run it through `bash scripts/bench/censorship [--runs N] [CASE ...]` (builds first; needs root).
// The table on stdout, progress on stderr. Each case runs on its own test internet of
// e2e/netns/autopilot/autopilot-kit.ts (the censor on the router, a laptop at home running netcli
// daemon, a relay abroad with UDP, Ferry TCP and the TLS transport to a real nginx cover site, a
// foreign iperf3 host), the same cases as the autopilot's namespace tests; its stop() removes it
// after the case, also when a step fails or the run is interrupted.
import os from 'node:os';
import { performance } from 'node:perf_hooks';

import type { LocalStatus, Protocol, Transport } from '../../contracts/index.js';
import {
  movedUnderLoad,
  startAutopilotBed,
  type AutopilotBed,
} from '../../e2e/netns/autopilot/autopilot-kit.js';
import { AUTOPILOT_CASES } from '../../e2e/netns/autopilot/cases.js';
import type { CensorOptions } from '../../e2e/netns/censor/censor.js';
import { receivedBitsPerSecond, runIperf } from '../../e2e/netns/ferry-iperf.js';
import { NETCLI } from '../../e2e/netns/netcli-host.js';
import { parseRuns, progress, runBench } from './bench-kit.js';
import {
  carrier,
  caseTable,
  failures,
  oneLine,
  type CaseOutcome,
  type RunSample,
} from './censorship-report.js';

const USAGE = `usage: censorship [--runs N] [CASE ...]   (N connects per case, default 3; CASE: a case's name as the table says it, default all)`;
const DEFAULT_RUNS = 3;
const REGION = 'asia-east';
/** A connect that has not returned by then has failed (the autopilot's own limits are lower). */
const CONNECT_TIMEOUT_MS = 90_000;
/** After connect returned, how long traffic may take to flow before the run has failed. */
const FLOW_TIMEOUT_MS = 30_000;
/** Each HTTP request through the tunnel waits this long for its answer. */
const ECHO_TIMEOUT_S = 2;
const IPERF_SECONDS = 5;
/** An iperf3 run that has not ended this long after its start has failed (a throttled tunnel drains slowly). */
const IPERF_TIMEOUT_MS = 60_000;
/** udp-throttle's seconds at full speed (the censor's default), and a margin past them. */
const UDP_GRACE_S = 10;
const PAST_GRACE_S = UDP_GRACE_S + 2;

interface BenchCase {
  name: string;
  censor: Readonly<CensorOptions>;
  /** iperf3 starts this long after the connect's start (else at once): past a throttle's grace. */
  iperfAfterS?: number;
  /**
   * A tunnel on `from` is moved to `to` while connected (a throttled UDP): a download past the
   * grace until the move, timed, before iperf3 measures the transport moved to.
   */
  moves?: { from: Transport; to: Transport };
  /** The laptop's protocol setting (default wireguard). */
  protocol?: Protocol;
}

/**
 * The autopilot's namespace test cases (e2e/netns/autopilot/cases.ts), and no censor at all;
 * udp-throttle measured past its grace (right after the connect the flow runs at full speed).
 */
const CASES: readonly BenchCase[] = [
  { name: 'no censor', censor: { profiles: [] } },
  ...Object.entries(AUTOPILOT_CASES).map(([name, c]): BenchCase =>
    name === 'udp-throttle'
      ? {
          name: `udp-throttle (iperf3 from ${PAST_GRACE_S} s after the connect)`,
          censor: { ...c.censor, udpGraceSeconds: UDP_GRACE_S },
          iperfAfterS: PAST_GRACE_S,
          moves: { from: 'udp', to: 'tls' },
        }
      : { name, censor: c.censor, ...('protocol' in c ? { protocol: c.protocol } : {}) },
  ),
];

const log = (msg: string) => {
  progress('');
  process.stderr.write(`bench: ${msg}\n`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `work`, or an error after `ms` (what it started is left to the test internet's stop()). */
async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end in ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `netcli connect --region REGION` as its own process, bounded by CONNECT_TIMEOUT_MS. */
async function connect(b: AutopilotBed): Promise<void> {
  const proc = b.bed.net.spawn('laptop', 'netcli-connect', [
    process.execPath,
    NETCLI,
    'connect',
    '--region',
    REGION,
    '--socket',
    b.laptop.socket,
  ]);
  const code = await bounded(proc.exited, CONNECT_TIMEOUT_MS, 'netcli connect').catch(async (e) => {
    await proc.stop();
    throw e;
  });
  if (code !== 0) throw new Error(`netcli connect exited ${code}: ${proc.output().trim()}`);
}

/** Waits (bounded) until an HTTP request through the tunnel is answered and the echo service sees the relay. */
async function trafficFlows(b: AutopilotBed): Promise<void> {
  const deadline = performance.now() + FLOW_TIMEOUT_MS;
  let last: string | undefined;
  while (performance.now() < deadline) {
    last = b.bed.echoFrom('laptop', ECHO_TIMEOUT_S);
    if (last === b.relay.address) return;
    await sleep(50);
  }
  throw new Error(
    `no HTTP answer through the relay ${FLOW_TIMEOUT_MS / 1000} s after connect (the echo service saw ${last ?? 'nothing'})`,
  );
}

/** One run: connect timed until traffic flows, the status's transport and reason, iperf3, disconnect. */
async function oneRun(b: AutopilotBed, c: BenchCase, label: string): Promise<RunSample> {
  try {
    progress(`${label}: connecting`);
    const t0 = performance.now();
    await connect(b);
    await trafficFlows(b);
    const connectMs = performance.now() - t0;
    let status = b.laptop.json('status') as LocalStatus;
    if (status.status !== 'connected' || !status.transport)
      throw new Error(`status says ${status.status} after traffic flowed`);
    if (c.iperfAfterS !== undefined) {
      progress(`${label}: connected, iperf3 from ${c.iperfAfterS} s after the connect`);
      await sleep(Math.max(0, t0 + c.iperfAfterS * 1000 - performance.now()));
    }
    let moved: RunSample['moved'];
    if (c.moves && status.transport === c.moves.from) {
      progress(`${label}: a download over ${status.transport} until the autopilot moves it`);
      const from = carrier({ transport: status.transport, protocol: status.protocol });
      const move = await movedUnderLoad(b, c.moves.to);
      status = move.status;
      moved = { from, ms: move.ms };
    }
    const transport = status.transport;
    if (transport === null) throw new Error(`status says ${status.status} and no transport`);
    progress(`${label}: iperf3 over ${transport}`);
    const iperf = await bounded(
      runIperf(b.bed.net, { server: 'abroad', client: 'laptop', bind: b.abroad }, [
        '-t',
        String(IPERF_SECONDS),
      ]),
      IPERF_TIMEOUT_MS,
      'iperf3',
    );
    if (iperf.code !== 0)
      throw new Error(`iperf3 exited ${iperf.code}: ${iperf.report.error ?? 'no error given'}`);
    return {
      connectMs,
      transport,
      protocol: status.protocol,
      reason: status.transport_reason?.message,
      mbps: receivedBitsPerSecond(iperf.report) / 1e6,
      ...(moved ? { moved } : {}),
    };
  } finally {
    const r = b.laptop.run('disconnect');
    if (r.code !== 0) log(`  ${label}: disconnect exited ${r.code}: ${r.stderr.trim()}`);
  }
}

/**
 * Removes a case's test internet; when its stop() fails part way (the censor, the daemon), the
 * namespaces go all the same, so that the next case starts on a clean machine.
 */
async function teardown(b: AutopilotBed): Promise<void> {
  try {
    await b.stop();
  } catch (e) {
    log(`removing the test internet: ${(e as Error).message}; removing its namespaces`);
    await b.bed.stop().catch((e2: unknown) => log(`  that failed too: ${(e2 as Error).message}`));
  }
}

/** The case under way, for a signal to remove its test internet. */
interface Session {
  current: AutopilotBed | undefined;
  interrupted: boolean;
}

/** A case on a test internet of its own: a fresh laptop, then `runs` runs; the internet removed after. */
async function runCase(c: BenchCase, runs: number, session: Session): Promise<CaseOutcome> {
  const outcome: CaseOutcome = { name: c.name, planned: runs, runs: [] };
  let b: AutopilotBed | undefined;
  try {
    progress(`${c.name}: starting its test internet`);
    b = await startAutopilotBed({ censor: c.censor });
    session.current = b;
    // A signal while it started: it is removed now, and the benchmark ends.
    if (session.interrupted) throw new Error('interrupted');
    b.laptop.human('init', '--protocol', c.protocol ?? 'wireguard', ...b.bed.endpointArgs());
    const { account_number: account } = b.laptop.json(
      'account',
      'create',
      '--device-name',
      'laptop',
    ) as {
      account_number: string;
    };
    // Premium: the free plan's rate limit (20 Mbit/s) would be every row's throughput.
    await b.bed.admin.adminSetPlan({ params: { number: account }, body: { plan: 'premium' } });
    b.laptop.human('config', 'set', 'obfuscation', 'auto');
  } catch (e) {
    outcome.failed = (e as Error).message ?? String(e);
    log(`${c.name}: FAILED to set up: ${outcome.failed}`);
    if (b) await teardown(b);
    session.current = undefined;
    if (session.interrupted) process.exit(130);
    return outcome;
  }
  try {
    for (let i = 1; i <= runs; i++) {
      const label = `${c.name} run ${i}`;
      try {
        const s = await oneRun(b, c, label);
        outcome.runs.push(s);
        log(
          `${label}: ${(s.connectMs / 1000).toFixed(2)} s to traffic over ${s.transport} ` +
            `(${s.reason ?? 'no reason given'}), ${s.mbps.toFixed(1)} Mbit/s`,
        );
      } catch (e) {
        const why = (e as Error).message ?? String(e);
        outcome.runs.push({ failed: why });
        log(
          `${label}: FAILED: ${why}\n  censor's last events: ${JSON.stringify(b.censor.events().slice(-3))}`,
        );
      }
    }
  } finally {
    await teardown(b);
    session.current = undefined;
  }
  return outcome;
}

/** The cases the words after the options name (all without any); an unknown name is an error. */
function chosen(names: readonly string[]): BenchCase[] {
  if (names.length === 0) return [...CASES];
  return names.map((n) => {
    // A name may leave off its parenthesis: `udp-throttle`, `port-block`.
    const c = CASES.find((x) => x.name === n || x.name.split(' (')[0] === n);
    if (!c)
      throw new Error(
        `no case ${JSON.stringify(n)}; the cases: ${CASES.map((x) => JSON.stringify(x.name)).join(', ')}`,
      );
    return c;
  });
}

async function main(): Promise<number> {
  const { runs, positionals } = parseRuns(process.argv.slice(2), USAGE, DEFAULT_RUNS, true);
  const cases = chosen(positionals);
  const t0 = Date.now();
  const loadAtStart = os.loadavg();

  // A signal removes the current case's test internet, then ends the process.
  // A test internet still starting is removed by its case once it is up.
  const session: Session = { current: undefined, interrupted: false };
  const onSignal = (signal: NodeJS.Signals) => {
    if (session.interrupted) return;
    session.interrupted = true;
    log(`${signal}: stopping`);
    const b = session.current;
    if (b) void teardown(b).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const outcomes: CaseOutcome[] = [];
  for (const c of cases) {
    log(`${c.name}: ${runs} connects`);
    outcomes.push(await runCase(c, runs, session));
    if (session.interrupted) return 130;
  }
  progress('');

  const failed = failures(outcomes);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const out = [
    `## Censorship: netcli connect to traffic flowing, per censor profile (runs per case: ${runs})`,
    '',
    `${new Date().toISOString()}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model.trim() ?? ''}, Node ${process.version}; ` +
      `load average (1 / 5 / 15 min) ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end`,
    '',
    caseTable(outcomes),
    '',
    'Each case: its own test internet with the censor on the router, a fresh laptop (init --protocol wireguard, or ferry where the case says,',
    'account create, made premium: the free plan holds a device to 20 Mbit/s; obfuscation auto), then runs of',
    "`netcli connect --region asia-east`, timed from the command's start until an HTTP request through the tunnel",
    'is answered by way of the relay; the transport and why from `netcli status --json`; iperf3 for',
    `${IPERF_SECONDS} s from the laptop to a foreign host through the tunnel (at once, or where the case says, later); disconnect.`,
    'first connect: on a network the autopilot had not seen; remembered: the later runs (median [min–max]),',
    'which start from what worked there. Throughput: the median of all runs.',
    '',
    ...(failed.length
      ? ['FAILED:', ...failed.map((f) => `  - ${f}`), '']
      : ['All runs succeeded.', '']),
    `Total run time: ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  if (failed.length) {
    log(`FAILED: ${failed.length} problem(s): ${failed.map(oneLine).join('; ')}`);
    return 1;
  }
  return 0;
}

runBench('censorship', main);
