// Client benchmark: netcli connect to the first byte through the tunnel, latency-check --all
// with 2 and 10 nodes, and the daemon's memory, on a namespace testbed.
//
// Run it through `bash scripts/bench/client` (builds first). Results (Markdown tables) on stdout,
// progress on stderr. Everything runs on a Testbed (e2e/netns/testbed.ts) with `netcli daemon`
// in a laptop namespace (e2e/netns/netcli-host.ts); the testbed's stop() removes every
// namespace, process and interface, also when a step fails or the run is interrupted.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLocalClient, type LocalClient } from '../../contracts/index.js';
import { createUnixFetch } from '../../engine/host/unix-fetch.js';
import { NetcliHost, NETCLI } from '../../e2e/netns/netcli-host.js';
import { requireTools, sh } from '../../e2e/netns/test-network.js';
import { Testbed } from '../../e2e/netns/testbed.js';
import { startCoverSite } from '../../e2e/netns/censor/cover-site.js';
import { TLS_PORT } from '../../e2e/netns/autopilot/cases.js';
import { markdownTable as table, median, spread } from './bench-kit.js';

/** Timed connects per protocol and per way of asking (netcli, the local API). */
const CONNECT_RUNS = 10;
/** latency-check --all runs per node count and state. */
const LATENCY_RUNS = 5;
/** The free plan's regions: the extra relays alternate between them. */
const REGIONS = ['asia-east', 'global'] as const;
const NODE_COUNTS = [2, 10] as const;
/** The entry region of the two-hop connects (marked entry by the bench). */
const ENTRY_REGION = 'bench-entry';
const TARGET_CONNECT_MS = 1_000;
const TARGET_LATENCY_CHECK_MS = 3_000;
/**
 * The production cadence (the control plane's default --node-healthy-seconds 30 asks relays to
 * beat every 10 s): ten relays beating every second would weigh on two cores.
 */
const NODE_HEALTHY_SECONDS = 30;
const HEARTBEAT_SECONDS = 10;
/** How long the daemon sits before an idle memory reading (timers, GC). */
const SETTLE_MS = 3_000;

type Protocol = 'wireguard' | 'ferry';
const PROTOCOL_NAME: Record<Protocol, string> = { wireguard: 'WireGuard', ferry: 'Ferry' };

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function verdict(xs: readonly number[], targetMs: number): string {
  if (xs.length === 0) return 'not measured';
  const m = median(xs);
  return `< ${targetMs / 1000} s: ${m < targetMs ? 'holds' : '**missed**'}${
    m < targetMs && Math.max(...xs) >= targetMs ? ' (max over)' : ''
  }`;
}

/** VmRSS and VmHWM of a process, in kB. */
function memory(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

const mib = (kb: number | undefined) => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(0)}`);

/** The children of `pid` named `comm` (the engine's wireguard-go). */
function childrenNamed(pid: number, comm: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid ...; comm may hold spaces and parentheses, so split at the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === pid && name === comm) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

interface ConnectSample {
  /** From starting the request (or the netcli process) until it answered connected. */
  connectMs: number;
  /** curl's time_starttransfer for one GET to the echo service right after. */
  firstByteMs: number;
}

interface MemoryRow {
  state: string;
  daemon?: { rss: number; hwm: number } | undefined;
  wireguardGo?: { rss: number; hwm: number } | undefined;
}

interface LatencyRow {
  nodes: number;
  state: string;
  processMs: number[];
  engineMs: number[];
  /** Nodes measured per run, and the worst loss any node showed. */
  measured: number[];
  worstLoss: number;
}

async function main(): Promise<void> {
  const started = performance.now();
  requireTools(['ip', 'nft', 'wireguard-go', 'wg', 'curl', 'sysctl', 'nginx']);
  const failures: string[] = [];
  const fail = (what: string, e: unknown) => {
    failures.push(`${what}: ${((e as Error).message ?? String(e)).split('\n')[0]}`);
    log(`  FAILED ${what}: ${(e as Error).stack ?? String(e)}`);
  };

  log('starting the testbed (control plane behind the router, echo service)');
  const bed = await Testbed.start({
    controlPlaneOn: 'servers',
    nodeHealthySeconds: NODE_HEALTHY_SECONDS,
    relayHeartbeatSeconds: HEARTBEAT_SECONDS,
  });
  let laptop: NetcliHost | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    log('cleaning up the testbed');
    await laptop?.stop().catch(() => undefined);
    await bed.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void stop().finally(() => process.exit(1));
    });

  const unixFetch: { close(): Promise<void> }[] = [];
  try {
    log(
      'starting relays in asia-east and global (WireGuard and Ferry; tokyo with the TLS transport)',
    );
    // tokyo serves the TLS transport (its cover site a real nginx): API access through relays.
    const cover = await startCoverSite(bed.net, { serverName: 'cover.example' });
    await bed.addRelay('tokyo', 'asia-east', { ferry: true, tls: { port: TLS_PORT, cover } });
    await bed.addRelay('zurich', 'global', { ferry: true });
    const relayAddresses = () => new Set([...bed.relays.values()].map((r) => r.address));

    log('starting netcli daemon on the laptop');
    laptop = await NetcliHost.start(bed, 'laptop');
    const host = laptop;
    const daemonPid = host.daemon!.child.pid!;
    const memoryRows: MemoryRow[] = [];
    const readMemory = (state: string, withWireguard = false) => {
      const row: MemoryRow = { state, daemon: memory(daemonPid) };
      if (withWireguard) {
        const wg = childrenNamed(daemonPid, 'wireguard-go');
        row.wireguardGo = wg.length === 1 ? memory(wg[0]!) : undefined;
        if (wg.length !== 1) fail(`wireguard-go of the daemon (${state})`, `${wg.length} found`);
      }
      memoryRows.push(row);
      log(`  RSS ${state}: daemon ${mib(row.daemon?.rss)} MiB`);
    };
    await sleep(SETTLE_MS);
    readMemory('started, not signed in');

    host.json('init', '--protocol', 'wireguard', ...bed.endpointArgs('/api/v1'));
    host.json('account', 'create');
    await sleep(SETTLE_MS);
    readMemory('signed in, never connected');

    const fetch = createUnixFetch(host.socket);
    unixFetch.push(fetch);
    const api: LocalClient = createLocalClient({ fetch, timeoutMs: 60_000 });

    /** One GET to the echo service from the laptop: curl's first-byte time and the exit seen. */
    const firstByte = (): { ms: number; exit: string } => {
      const r = spawnSync(
        'ip',
        [
          'netns',
          'exec',
          bed.net.host(host.host).ns,
          'curl',
          '-s',
          '--max-time',
          '5',
          '-w',
          '\n%{time_starttransfer}',
          bed.echoUrl,
        ],
        { encoding: 'utf8', timeout: 10_000 },
      );
      if (r.status !== 0) throw new Error(`curl to the echo service exited ${r.status}`);
      const cut = r.stdout.lastIndexOf('\n');
      return { ms: Number(r.stdout.slice(cut + 1)) * 1000, exit: r.stdout.slice(0, cut).trim() };
    };

    /**
     * Connects one way, then one request through the tunnel; checks the echo service saw a
     * relay (so the byte came through the tunnel), then disconnects.
     */
    const timedConnect = async (
      protocol: Protocol,
      via: 'netcli' | 'api',
      entry?: string,
    ): Promise<ConnectSample> => {
      const t0 = performance.now();
      if (via === 'netcli') {
        const r = host.run('connect', '--protocol', protocol, '--region', REGIONS[0], '--json');
        if (r.code !== 0) throw new Error(`netcli connect exited ${r.code}: ${r.stderr.trim()}`);
      } else {
        await api.connect({
          body: { protocol, region: REGIONS[0], ...(entry ? { via: entry } : {}) },
        });
      }
      const connectMs = performance.now() - t0;
      const { ms, exit } = firstByte();
      if (!relayAddresses().has(exit))
        throw new Error(`the echo service saw ${exit || 'nothing'}, not a relay`);
      return { connectMs, firstByteMs: ms };
    };

    // The first connect after the daemon starts: a new control-plane connection, nothing
    // measured yet (the next connects on this network, where UDP got through, measure the
    // region's nodes while the tunnel comes up): shown on its own.
    log('cold connect (WireGuard, netcli): the first after the daemon started');
    let cold: ConnectSample | undefined;
    try {
      cold = await timedConnect('wireguard', 'netcli');
    } catch (e) {
      fail('cold connect', e);
    }
    await api.disconnect({}).catch((e: unknown) => fail('disconnect after the cold connect', e));

    // What any netcli command costs before it does anything: Node itself, then netcli's modules.
    log('netcli status --json and a bare node: the cost of starting one netcli command');
    const statusMs: number[] = [];
    const bareNodeMs: number[] = [];
    for (let i = 0; i < CONNECT_RUNS; i++) {
      let t0 = performance.now();
      const r = host.run('status', '--json');
      if (r.code === 0) statusMs.push(performance.now() - t0);
      t0 = performance.now();
      const bare = spawnSync('ip', [
        'netns',
        'exec',
        bed.net.host(host.host).ns,
        process.execPath,
        '-e',
        '0',
      ]);
      if (bare.status === 0) bareNodeMs.push(performance.now() - t0);
    }

    const samples: Record<string, ConnectSample[]> = {};
    const disconnectMs: number[] = [];
    for (const protocol of ['wireguard', 'ferry'] as const) {
      for (const via of ['netcli', 'api'] as const) samples[`${protocol}/${via}`] = [];
      log(
        `${PROTOCOL_NAME[protocol]}: ${CONNECT_RUNS} connects through netcli and ${CONNECT_RUNS} through the local API, alternately`,
      );
      for (let i = 0; i < CONNECT_RUNS; i++) {
        for (const via of ['netcli', 'api'] as const) {
          try {
            const s = await timedConnect(protocol, via);
            samples[`${protocol}/${via}`]!.push(s);
            log(
              `  ${via.padEnd(6)} run ${i + 1}: connect ${s.connectMs.toFixed(0)} ms, first byte ${s.firstByteMs.toFixed(1)} ms`,
            );
          } catch (e) {
            fail(`${PROTOCOL_NAME[protocol]} connect through ${via}, run ${i + 1}`, e);
          }
          if (i === CONNECT_RUNS - 1 && via === 'api')
            readMemory(`connected, ${PROTOCOL_NAME[protocol]}`, protocol === 'wireguard');
          const t0 = performance.now();
          try {
            await api.disconnect({});
            disconnectMs.push(performance.now() - t0);
          } catch (e) {
            fail(`disconnect after ${PROTOCOL_NAME[protocol]} run ${i + 1}`, e);
          }
        }
      }
    }

    // The control plane reached through a relay (its TLS port splices to it), as where the
    // service is blocked: every connect's POST /connect takes that way.
    samples['wireguard/relays'] = [];
    log(`API access through relays: ${CONNECT_RUNS} WireGuard connects through the local API`);
    try {
      await api.useApiAccess({ body: { method: 'relays' } });
      for (let i = 0; i < CONNECT_RUNS; i++) {
        try {
          const s = await timedConnect('wireguard', 'api');
          samples['wireguard/relays'].push(s);
          log(
            `  relays run ${i + 1}: connect ${s.connectMs.toFixed(0)} ms, first byte ${s.firstByteMs.toFixed(1)} ms`,
          );
        } catch (e) {
          fail(`WireGuard connect with API access through relays, run ${i + 1}`, e);
        }
        await api.disconnect({}).catch((e: unknown) => fail('disconnect (relays)', e));
      }
      await api.useApiAccess({ body: { method: 'auto' } });
    } catch (e) {
      fail('API access through relays', e);
    }

    await sleep(SETTLE_MS);
    readMemory(`signed in, disconnected (after ${5 * CONNECT_RUNS + 1} connects)`);

    const latencyRows: LatencyRow[] = [];
    const latencyRound = async (nodes: number) => {
      for (const state of ['disconnected', 'connected (Ferry)'] as const) {
        if (state !== 'disconnected') await api.connect({ body: { protocol: 'ferry' } });
        const row: LatencyRow = {
          nodes,
          state,
          processMs: [],
          engineMs: [],
          measured: [],
          worstLoss: 0,
        };
        log(`latency-check --all, ${nodes} nodes, ${state}: ${LATENCY_RUNS} runs`);
        for (let i = 0; i < LATENCY_RUNS; i++) {
          const t0 = performance.now();
          const r = host.run('latency-check', '--all', '--json');
          const ms = performance.now() - t0;
          if (r.code !== 0) {
            fail(`latency-check --all (${nodes} nodes, ${state})`, r.stderr.trim());
            continue;
          }
          const answer = JSON.parse(r.stdout) as {
            results: { loss: number }[];
            duration_ms: number;
          };
          row.processMs.push(ms);
          row.engineMs.push(answer.duration_ms);
          row.measured.push(answer.results.length);
          row.worstLoss = Math.max(row.worstLoss, ...answer.results.map((x) => x.loss));
          // Connected, only the node in use is measured (through the tunnel: no probe leaves
          // beside it); disconnected, every node.
          if (answer.results.length !== (state === 'disconnected' ? nodes : 1))
            fail(
              `latency-check --all (${nodes} nodes, ${state})`,
              `${answer.results.length} nodes measured`,
            );
        }
        latencyRows.push(row);
        if (state !== 'disconnected') await api.disconnect({});
      }
    };
    await latencyRound(2);

    const extra = NODE_COUNTS[1] - bed.relays.size;
    log(`adding ${extra} relays (WireGuard only), alternating ${REGIONS.join(' and ')}`);
    for (let i = 0; i < extra; i++)
      await bed.addRelay(`relay${i + 3}`, REGIONS[i % REGIONS.length]!);
    await latencyRound(bed.relays.size);

    // Two hops: in at a relay of an entry region, out at the exit (the entry forwards).
    samples['wireguard/two-hops'] = [];
    log(
      `multihop: ${CONNECT_RUNS} WireGuard connects through the local API, --via an entry region`,
    );
    try {
      await bed.admin.adminCreateRegion({
        body: { id: ENTRY_REGION, name: 'Entry', area: 'entry', country: null, entry: true },
      });
      // After the latency rounds: a region the plan does not list would change their counts.
      await bed.addRelay('entry', ENTRY_REGION, { ferry: true });
      // The entry learns its forwards from its next heartbeat answer.
      await sleep(2 * HEARTBEAT_SECONDS * 1000);
      for (let i = 0; i < CONNECT_RUNS; i++) {
        try {
          const s = await timedConnect('wireguard', 'api', ENTRY_REGION);
          samples['wireguard/two-hops'].push(s);
          log(
            `  two hops run ${i + 1}: connect ${s.connectMs.toFixed(0)} ms, first byte ${s.firstByteMs.toFixed(1)} ms`,
          );
        } catch (e) {
          fail(`WireGuard connect through two hops, run ${i + 1}`, e);
        }
        await api.disconnect({}).catch((e: unknown) => fail('disconnect (two hops)', e));
      }
    } catch (e) {
      fail('multihop', e);
    }

    await sleep(SETTLE_MS);
    readMemory('signed in, disconnected (at the end)');

    const wgVersion = sh('wireguard-go', ['--version']).split('\n')[0]!.trim();
    const [load1, load5] = os.loadavg();
    const out: string[] = [];
    const sum = (xs: ConnectSample[]) => xs.map((s) => s.connectMs + s.firstByteMs);
    out.push(
      `Ferry client benchmark — ${new Date().toISOString()}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model.trim() ?? ''}, Node ${process.version}, ${wgVersion}; load average ${load1!.toFixed(1)} / ${load5!.toFixed(1)} (1 / 5 min) at the end`,
      '',
      `1. Connect to the first byte through the tunnel (${CONNECT_RUNS} runs each, the two ways alternately, a disconnect after each; ms, median [min–max])`,
      '',
      table(
        [
          'protocol',
          'connect, timed from',
          'connect ms',
          'first byte ms (curl)',
          'connect + first byte ms',
          `target (connect + first byte)`,
        ],
        [
          ...(['wireguard', 'ferry'] as const).flatMap((p) =>
            (['netcli', 'api'] as const).map((via) => {
              const xs = samples[`${p}/${via}`]!;
              return [
                PROTOCOL_NAME[p],
                via === 'netcli'
                  ? 'start of `netcli connect --json` to its exit'
                  : 'engine: `POST /connect` on the socket',
                spread(xs.map((s) => s.connectMs)),
                spread(xs.map((s) => s.firstByteMs)),
                spread(sum(xs)),
                verdict(sum(xs), TARGET_CONNECT_MS),
              ];
            }),
          ),
          ((xs) => [
            'WireGuard',
            'engine: `POST /connect`, the control plane reached through a relay (API access relays)',
            spread(xs.map((s) => s.connectMs)),
            spread(xs.map((s) => s.firstByteMs)),
            spread(sum(xs)),
            verdict(sum(xs), TARGET_CONNECT_MS),
          ])(samples['wireguard/relays'] ?? []),
          ((xs) => [
            'WireGuard',
            'engine: `POST /connect` with `via`: two hops, in at an entry relay, out at the exit',
            spread(xs.map((s) => s.connectMs)),
            spread(xs.map((s) => s.firstByteMs)),
            spread(sum(xs)),
            verdict(sum(xs), TARGET_CONNECT_MS),
          ])(samples['wireguard/two-hops'] ?? []),
          cold
            ? [
                'WireGuard',
                'cold: the first `netcli connect` after the daemon started',
                cold.connectMs.toFixed(0),
                cold.firstByteMs.toFixed(1),
                (cold.connectMs + cold.firstByteMs).toFixed(0),
                verdict([cold.connectMs + cold.firstByteMs], TARGET_CONNECT_MS),
              ]
            : ['WireGuard', 'cold', 'FAILED', '-', '-', '-'],
        ],
      ),
      '',
      `   connect: until the command exits (or the API answers): the engine answers once a round trip crossed the`,
      `   tunnel and the control plane told it the exit address through the tunnel. first byte: curl's time_starttransfer`,
      `   for one GET to the echo service right after (curl's own process start not counted); the echo service saw a relay.`,
      `   Where the netcli rows' time goes: \`netcli status --json\` (process start, one API call) takes ${spread(statusMs)} ms,`,
      `   a bare \`node -e 0\` ${spread(bareNodeMs)} ms (both through \`ip netns exec\`); \`disconnect\` on the API ${spread(disconnectMs)} ms.`,
      '',
      `2. \`netcli latency-check --all\` (${LATENCY_RUNS} runs each, default 5 probes per node; ms, median [min–max])`,
      '',
      table(
        ['nodes', 'state', 'netcli process ms', 'engine (duration_ms)', 'worst loss', 'target'],
        latencyRows.map((r) => [
          String(r.nodes),
          r.state,
          spread(r.processMs),
          spread(r.engineMs),
          String(r.worstLoss),
          verdict(r.processMs, TARGET_LATENCY_CHECK_MS),
        ]),
      ),
      '',
      '3. Daemon memory (VmRSS of the `netcli daemon` process; peak is VmHWM so far; MiB)',
      '',
      table(
        ['state', 'daemon RSS', 'daemon peak', 'its wireguard-go RSS'],
        memoryRows.map((r) => [
          r.state,
          mib(r.daemon?.rss),
          mib(r.daemon?.hwm),
          r.wireguardGo ? mib(r.wireguardGo.rss) : '-',
        ]),
      ),
      '',
      `   Ferry's data plane runs inside the daemon (threads of the native addon); WireGuard is a wireguard-go child.`,
      `   netcli: ${NETCLI}. Control plane, relays, echo service, daemon and the timed commands share the machine's ${os.cpus().length} CPU(s).`,
      '',
      ...(failures.length
        ? ['FAILED measurements:', ...failures.map((f) => `  - ${f}`), '']
        : ['All measurements succeeded.', '']),
      `Total run time: ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await Promise.all(unixFetch.map((f) => f.close().catch(() => undefined)));
    await stop();
  }
  if (failures.length) {
    log(`FAILED: ${failures.length} measurement(s) failed (see the report)`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: FAILED: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
