// Split tunneling benchmark: the GeoIP dataset's load, the ranges of a few countries, the direct
// set, nft applying the US direct set (the largest) as one transaction, then replacing it; and
// the engine's own path: its `inet ferry` table with split on, built and applied through
// NftFirewall (the whole table once per connect, only what changed after).
//
// Run it through `bash scripts/bench/split` (builds first; needs root for the namespace).
// Results (Markdown tables) on stdout, progress on stderr. nft runs in a throwaway network
// namespace, deleted at the end, also when a step fails or the run is interrupted.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

import { TUNNEL_IPV4_CIDR, TUNNEL_IPV6_CIDR } from '../../contracts/index.js';
import { runCommand, type CommandRunner } from '../../platform/os/command.js';
import {
  NftFirewall,
  replaceTableCommands,
  type NftObject,
  type NftTable,
} from '../../platform/os/nftables.js';
import { guardPolicy, type GuardFacts } from '../../engine/protection/connection-guard.js';
import {
  PROTECTION_TABLE,
  protectionTable,
  type Endpoint,
} from '../../engine/protection/firewall-policy.js';
import { directSet, type DirectSetInput } from '../../engine/split/direct-set.js';
import { loadGeoIp, type GeoIp } from '../../engine/split/geoip.js';
import { DATASET_PACKAGE } from '../../engine/split/geoip-dataset.js';
import { count, rangeCount, toCidrs, type FamilyIntervals } from '../../engine/split/intervals.js';
import { nftIntervalSet, toNftElements } from '../../engine/split/nft-elements.js';
import { GeoSplitTunnel, type SplitSets } from '../../engine/split/split-tunnel.js';
import { requireTools } from '../../e2e/netns/test-network.js';
import { median, progress, runBench, spread } from './bench-kit.js';
import { resolverRows, type LatencyRow } from './split-resolver.js';

const COUNTRIES = ['US', 'DE', 'CN', 'JP'] as const;
/** The largest direct set of the four: the one nft is timed with. */
const HOME = 'US';
const TARGET_IPV4_LOAD_MS = 1_000;
/** Pure steps are repeated, and the median kept. */
const PURE_RUNS = 20;
/** Replacing transactions per body (alternating two direct sets, as a LAN change would). */
const REPLACE_RUNS = 5;
const TABLE: NftTable = { family: 'inet', name: 'ferry' };
/** The home countries the engine's own path is measured with (the largest set, and a middling one). */
const ENGINE_COUNTRIES = ['US', 'DE'] as const;
/** Connect cycles (apply, update, update, remove) per country, after one that checks them. */
const ENGINE_RUNS = 5;
/** The target for applying the split sets. */
const TARGET_APPLY_MS = 1_000;
/** What the engine carves out of the split sets: the tunnel's blocks (engine.ts splitSets). */
const ALWAYS_TUNNELED = [TUNNEL_IPV4_CIDR, TUNNEL_IPV6_CIDR];
/** Documentation addresses for the nodes, their probe responders and the control plane. */
const NODE_A: Endpoint = { address: '198.51.100.7', port: 51820, protocol: 'udp' };
const NODE_B: Endpoint = { address: '198.51.100.8', port: 51820, protocol: 'udp' };
const PROBES: Endpoint[] = [NODE_A, NODE_B].map((n) => ({ ...n, port: n.port + 64 }));
const CONTROL_PLANE: Endpoint[] = [{ address: '192.0.2.10', port: 443, protocol: 'tcp' }];
/** The tunnel's resolver, in force once connected. */
const TUNNEL_DNS = '10.64.0.1';

/** The engine's inputs on a typical laptop: a home LAN, the tunnel's block and its resolver. */
const INPUT: Omit<DirectSetInput, 'home'> = {
  lan: ['192.168.1.0/24', 'fd00:1::/64'],
  alwaysTunneled: ['10.64.0.0/10', '10.64.0.1', 'fd00:64::/64'],
};
/** The same after the laptop moved to another network: the second transaction's content. */
const MOVED: Omit<DirectSetInput, 'home'> = { ...INPUT, lan: ['172.20.4.0/22'] };

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

function timed<T>(f: () => T): { value: T; ms: number } {
  const t = performance.now();
  const value = f();
  return { value, ms: performance.now() - t };
}

function repeat(runs: number, f: () => unknown): number[] {
  return Array.from({ length: runs }, () => timed(f).ms);
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
/** "median [min–max]" in milliseconds, two decimals below 10. */
const spreadMs = (xs: readonly number[]) => spread(xs, ms);
const thousands = (n: number) => n.toLocaleString('en-US');

function table(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Rows per country in the dataset's CSVs, as shipped (before nested rows are resolved). */
function csvRowsByCountry(): Record<'ipv4' | 'ipv6', Map<string, number>> {
  const dir = path.dirname(
    createRequire(import.meta.url).resolve(`${DATASET_PACKAGE}/package.json`),
  );
  const tally = (file: string) => {
    const m = new Map<string, number>();
    for (const line of readFileSync(path.join(dir, file), 'latin1').split('\n')) {
      const cc = line.slice(-2);
      if (line) m.set(cc, (m.get(cc) ?? 0) + 1);
    }
    return m;
  };
  return {
    ipv4: tally('geo-whois-asn-country-ipv4-num.csv'),
    ipv6: tally('geo-whois-asn-country-ipv6-num.csv'),
  };
}

function home(geo: GeoIp, cc: string): FamilyIntervals {
  return { v4: geo.ranges(cc, 'ipv4'), v6: geo.ranges(cc, 'ipv6') };
}

/**
 * A throwaway network namespace for nft. Its commands run asynchronously, so that SIGINT and
 * SIGTERM are handled while nft works; `close` deletes it, synchronously (a signal handler
 * calls it), and may be called again.
 */
class Namespace {
  readonly name = `ferry-split-${randomBytes(4).toString('hex')}`;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'ferry-split-bench-'));
  private open = false;

  async create(): Promise<void> {
    this.open = true;
    await run('ip', ['netns', 'add', this.name]);
  }

  /** `nft -j -f` on one transaction inside the namespace; its wall time, spawn included. */
  async nft(commands: Record<string, unknown>[]): Promise<{ ms: number; bytes: number }> {
    const file = path.join(this.dir, 'batch.json');
    const text = JSON.stringify({ nftables: commands });
    writeFileSync(file, text, { mode: 0o600 });
    const t = performance.now();
    await run('ip', ['netns', 'exec', this.name, 'nft', '-j', '-f', file]);
    return { ms: performance.now() - t, bytes: text.length };
  }

  /** The elements nft holds in a set of the table. */
  async elements(set: string): Promise<number> {
    const out = await run(
      'ip',
      ['netns', 'exec', this.name, 'nft', '-j', 'list', 'set'].concat([
        TABLE.family,
        TABLE.name,
        set,
      ]),
    );
    const listed = JSON.parse(out) as { nftables: { set?: { elem?: unknown[] } }[] };
    return listed.nftables.find((o) => o.set)?.set?.elem?.length ?? 0;
  }

  close(): void {
    if (this.open) spawnSync('ip', ['netns', 'del', this.name], { stdio: 'ignore' });
    this.open = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const execFileAsync = promisify(execFile);

async function run(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(cmd, args, {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (e) {
    const err = e as { code?: unknown; signal?: unknown; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.slice(0, 5).join(' ')} failed (${String(err.code ?? err.signal)}): ${
        err.stderr?.trim() || err.message
      }`,
    );
  }
}

interface NftRun {
  what: string;
  elements: number;
  bytes: number;
  first: number;
  replace: number[];
}

function elementsOf(body: readonly NftObject[]): number {
  return body.reduce((n, o) => n + ((o.set?.elem as unknown[] | undefined)?.length ?? 0), 0);
}

/**
 * Applies `a` to a namespace without the table, then replaces it alternately with `b` and `a`
 * (the engine replaces the whole table on every change). Checks that nft holds every element
 * of `a`'s set `check` before timing the replacements.
 */
async function applyAndReplace(
  ns: Namespace,
  what: string,
  a: NftObject[],
  b: NftObject[],
  check: string | null,
): Promise<NftRun> {
  progress(`nft: ${what}`);
  await ns.nft([{ add: { table: TABLE } }, { delete: { table: TABLE } }]);
  const first = await ns.nft(replaceTableCommands(TABLE, a));
  if (check !== null) {
    const sent = elementsOf(a.filter((o) => o.set?.name === check));
    const held = await ns.elements(check);
    if (held !== sent) throw new Error(`nft holds ${held} elements in ${check}; ${sent} were sent`);
  }
  const replace: number[] = [];
  for (let i = 0; i < REPLACE_RUNS; i++)
    replace.push((await ns.nft(replaceTableCommands(TABLE, i % 2 === 0 ? b : a))).ms);
  return { what, elements: elementsOf(a), bytes: first.bytes, first: first.ms, replace };
}

/** The engine's facts as a connect goes (connection-guard.ts): kill switch on, LAN not allowed. */
function facts(split: SplitSets, stage: 'connecting' | 'connected', node: Endpoint): GuardFacts {
  return {
    stage,
    killSwitch: true,
    lockdown: false,
    allowLan: false,
    controlPlane: CONTROL_PLANE,
    nodes: [node],
    serviceNodes: {},
    probes: PROBES,
    dns: [TUNNEL_DNS],
    homeDns: [],
    rulesVersion: 0,
    split,
    pinned: [],
  };
}

/** The `inet ferry` body the engine applies for `f` (guardPolicy, then protectionTable). */
function engineBody(f: GuardFacts): NftObject[] {
  const policy = guardPolicy(f, { v4: [], v6: [] });
  if (!policy?.block || !policy.split)
    throw new Error('the policy is not a blocking one with split');
  return protectionTable(policy);
}

/** The steps of one connect that change the table, in order. */
const ENGINE_STEPS = [
  'first apply: whole table (connecting)',
  'update: DNS added (connected)',
  'update: node changed (failover)',
  'remove (disconnect)',
] as const;
type EngineStep = (typeof ENGINE_STEPS)[number];
/** The steps that must go the incremental way (the sets are not sent again). */
const INCREMENTAL: readonly EngineStep[] = [ENGINE_STEPS[1], ENGINE_STEPS[2]];

interface EngineRun {
  country: string;
  elements: number;
  /** GeoSplitTunnel.sets() with a fresh instance (the dataset loaded), ms. */
  sets: number[];
  /** guardPolicy + protectionTable, ms. */
  body: number[];
  /** Per step: the batch sent (bytes, from the checked cycle) and the timed runs. */
  steps: Map<EngineStep, { bytes: number; ms: number[] }>;
}

/**
 * The engine's own path in the namespace: an NftFirewall whose runner prefixes `ip netns exec`,
 * fresh per cycle (a new engine process: its first apply replaces the whole table). One
 * checked cycle first: nft holds every element sent, both updates went the incremental way (a
 * `flush`, no split set sent again) and kept the sets, the remove left no table. Then
 * ENGINE_RUNS timed cycles.
 */
async function engineCycles(ns: Namespace, country: string): Promise<EngineRun> {
  progress(`engine path: ${country} sets and table body`);
  const sets = await new GeoSplitTunnel().sets(country, ALWAYS_TUNNELED);
  const setRuns: number[] = [];
  for (let i = 0; i < PURE_RUNS; i++) {
    const t = performance.now();
    await new GeoSplitTunnel().sets(country, ALWAYS_TUNNELED);
    setRuns.push(performance.now() - t);
  }
  const bodies: Record<EngineStep, NftObject[]> = {
    [ENGINE_STEPS[0]]: engineBody(facts(sets, 'connecting', NODE_A)),
    [ENGINE_STEPS[1]]: engineBody(facts(sets, 'connected', NODE_A)),
    [ENGINE_STEPS[2]]: engineBody(facts(sets, 'connected', NODE_B)),
    [ENGINE_STEPS[3]]: [],
  };
  const bodyRuns = repeat(PURE_RUNS, () => engineBody(facts(sets, 'connecting', NODE_A)));

  let record: string[] | null = null;
  const runner: CommandRunner = (tool, args) => {
    // The batch file exists only during the call: read it now (never in a timed cycle).
    if (record && tool === 'nft' && args[0] === '-j' && args[1] === '-f')
      record.push(readFileSync(args[2]!, 'utf8'));
    return runCommand('ip', ['netns', 'exec', ns.name, tool, ...args]);
  };
  const cycle = async (): Promise<Map<EngineStep, number>> => {
    const fw = new NftFirewall(runner);
    const times = new Map<EngineStep, number>();
    for (const step of ENGINE_STEPS) {
      const t = performance.now();
      if (step === ENGINE_STEPS[3]) await fw.remove(PROTECTION_TABLE);
      else await fw.apply(PROTECTION_TABLE, bodies[step]);
      times.set(step, performance.now() - t);
    }
    return times;
  };

  progress(`engine path: ${country}, the checked cycle`);
  await ns.nft([{ add: { table: TABLE } }, { delete: { table: TABLE } }]);
  const batches: string[] = [];
  record = batches;
  const fw = new NftFirewall(runner);
  const bytes = new Map<EngineStep, number>();
  const sent = (name: string) =>
    elementsOf(bodies[ENGINE_STEPS[0]].filter((o) => o.set?.name === name));
  // The split sets the engine's table has (the route and private sets, stream mode's pinned
  // set): the first apply sends each of them, the updates none.
  const splitSets = bodies[ENGINE_STEPS[0]]
    .map((o) => o.set?.name)
    .filter((n): n is string => typeof n === 'string' && n.startsWith('split_'));
  if (!splitSets.includes('split_route4') || !splitSets.includes('split_private4'))
    throw new Error(`the engine's table has the split sets ${splitSets.join(', ') || 'none'}`);
  for (const step of ENGINE_STEPS) {
    const before = batches.length;
    if (step === ENGINE_STEPS[3]) await fw.remove(PROTECTION_TABLE);
    else await fw.apply(PROTECTION_TABLE, bodies[step]);
    if (batches.length !== before + 1)
      throw new Error(`${step}: ${batches.length - before} nft batches, not one`);
    const text = batches.at(-1)!;
    bytes.set(step, text.length);
    const commands = (JSON.parse(text) as { nftables: Record<string, unknown>[] }).nftables;
    const setsSent = commands
      .map((c) => (c.add as { set?: { name: string } } | undefined)?.set?.name)
      .filter((n): n is string => n !== undefined && n.startsWith('split_'));
    if (INCREMENTAL.includes(step)) {
      if (!commands.some((c) => 'flush' in c) || setsSent.length > 0)
        throw new Error(
          `${step} did not go the incremental way (flush: ${commands.some((c) => 'flush' in c)}, split sets sent: ${setsSent.join(', ') || 'none'})`,
        );
    } else if (
      step === ENGINE_STEPS[0] &&
      [...setsSent].sort().join() !== [...splitSets].sort().join()
    ) {
      throw new Error(
        `${step} sent the split sets ${setsSent.join(', ') || 'none'}, not ${splitSets.join(', ')}`,
      );
    }
    if (step !== ENGINE_STEPS[3])
      for (const set of splitSets) {
        const held = await ns.elements(set);
        if (held !== sent(set))
          throw new Error(
            `after ${step} nft holds ${held} elements in ${set}; ${sent(set)} were sent`,
          );
      }
    if (step === ENGINE_STEPS[1] && (await ns.elements('dns4')) !== 1)
      throw new Error(`after ${step} the resolver is not in dns4`);
  }
  record = null;
  if (await fw.exists(PROTECTION_TABLE)) throw new Error('the table is still there after remove');

  const steps = new Map(
    ENGINE_STEPS.map((s) => [s, { bytes: bytes.get(s) ?? 0, ms: [] as number[] }]),
  );
  for (let i = 0; i < ENGINE_RUNS; i++) {
    progress(`engine path: ${country}, cycle ${i + 1} of ${ENGINE_RUNS}`);
    for (const [step, ms] of await cycle()) steps.get(step)!.ms.push(ms);
  }
  return {
    country,
    elements: elementsOf(bodies[ENGINE_STEPS[0]]),
    sets: setRuns,
    body: bodyRuns,
    steps,
  };
}

/** The target's verdict on timed runs: every run under it, or the median only, or missed. */
function applyVerdict(xs: readonly number[]): string {
  const limit = `< ${TARGET_APPLY_MS / 1000} s`;
  if (Math.max(...xs) < TARGET_APPLY_MS) return `${limit}: holds`;
  return median(xs) < TARGET_APPLY_MS
    ? `${limit}: holds by the median (max over)`
    : `${limit}: **missed**`;
}

async function main(): Promise<number> {
  requireTools(['ip', 'nft']);

  progress('loading the dataset (IPv4)');
  const loadV4 = timed(() => loadGeoIp());
  const geo = loadV4.value;
  const again = timed(() => loadGeoIp());
  progress('loading the dataset (IPv6)');
  const loadV6 = timed(() => geo.countryOf('2001:4860:4860::8888'));
  const info = geo.info();
  if (loadV6.value !== 'US' || geo.countryOf('8.8.8.8') !== 'US')
    throw new Error('the dataset does not place 8.8.8.8 and 2001:4860:4860::8888 in the US');

  progress('countries');
  const rows = csvRowsByCountry();
  const countryRows = COUNTRIES.map((cc) => {
    const v4 = timed(() => geo.ranges(cc, 'ipv4'));
    const v6 = timed(() => geo.ranges(cc, 'ipv6'));
    return [
      cc,
      thousands(rows.ipv4.get(cc) ?? 0),
      thousands(rangeCount(v4.value)),
      thousands(toCidrs(v4.value).length),
      `${((count(v4.value) / 2 ** 32) * 100).toFixed(2)} %`,
      thousands(rows.ipv6.get(cc) ?? 0),
      thousands(rangeCount(v6.value)),
      thousands(toCidrs(v6.value).length),
      `${ms(v4.ms)} / ${ms(v6.ms)}`,
    ];
  });

  progress('direct set');
  const homeSets = home(geo, HOME);
  const direct = directSet({ home: homeSets, ...INPUT });
  const moved = directSet({ home: homeSets, ...MOVED });
  const directRuns = repeat(PURE_RUNS, () => directSet({ home: homeSets, ...INPUT }));
  const elementRuns = repeat(PURE_RUNS, () => {
    toNftElements(direct.v4);
    toNftElements(direct.v6);
  });
  const sets = (d: FamilyIntervals, v6: boolean): NftObject[] => [
    nftIntervalSet('split_route4', d.v4),
    ...(v6 ? [nftIntervalSet('split_route6', d.v6)] : []),
  ];
  const bodyRuns = repeat(PURE_RUNS, () => replaceTableCommands(TABLE, sets(direct, true)));

  const ns = new Namespace();
  const interrupted = () => {
    ns.close();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const nftRuns: NftRun[] = [];
  const engineRuns: EngineRun[] = [];
  let resolver: LatencyRow[] = [];
  try {
    await ns.create();
    nftRuns.push(await applyAndReplace(ns, 'empty table (spawn, netns)', [], [], null));
    nftRuns.push(
      await applyAndReplace(
        ns,
        `${HOME} direct set, IPv4: one set`,
        sets(direct, false),
        sets(moved, false),
        'split_route4',
      ),
    );
    nftRuns.push(
      await applyAndReplace(
        ns,
        `${HOME} direct set, IPv4 + IPv6: two sets`,
        sets(direct, true),
        sets(moved, true),
        'split_route6',
      ),
    );
    for (const cc of ENGINE_COUNTRIES) engineRuns.push(await engineCycles(ns, cc));
    resolver = await resolverRows(ns.name);
  } finally {
    ns.close();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
  progress('');

  const { dataset } = info;
  const verdict =
    loadV4.ms < TARGET_IPV4_LOAD_MS
      ? `< ${TARGET_IPV4_LOAD_MS / 1000} s: holds`
      : `< ${TARGET_IPV4_LOAD_MS / 1000} s: **missed**`;
  const out = [
    `## Split tunneling (${dataset.package} ${dataset.version})`,
    '',
    table(
      ['dataset', 'ms', 'CSV rows', 'disjoint ranges', ''],
      [
        [
          'IPv4, first load',
          ms(loadV4.ms),
          thousands(dataset.ipv4.rows),
          thousands(dataset.ipv4.ranges),
          verdict,
        ],
        ['IPv4, second load (cached)', ms(again.ms), '', '', ''],
        [
          'IPv6, first question',
          ms(loadV6.ms),
          thousands(dataset.ipv6?.rows ?? 0),
          thousands(dataset.ipv6?.ranges ?? 0),
          '',
        ],
      ],
    ),
    '',
    table(
      [
        'country',
        'IPv4 rows',
        'IPv4 merged',
        'IPv4 CIDRs',
        'of IPv4',
        'IPv6 rows',
        'IPv6 merged',
        'IPv6 CIDRs',
        'ranges() ms v4 / v6',
      ],
      countryRows,
    ),
    '',
    table(
      ['direct set (home US, a LAN, tunnel block and resolver carved out)', 'value'],
      [
        [
          'IPv4 / IPv6 ranges (= nft elements)',
          `${thousands(rangeCount(direct.v4))} / ${thousands(rangeCount(direct.v6))}`,
        ],
        [`directSet(), ms (median [min–max] of ${PURE_RUNS})`, spreadMs(directRuns)],
        ['toNftElements() v4 + v6, ms', spreadMs(elementRuns)],
        [
          'table body with both sets (nftIntervalSet, replaceTableCommands), ms',
          spreadMs(bodyRuns),
        ],
      ],
    ),
    '',
    table(
      [
        'nft -j -f, one transaction in a netns',
        'elements',
        'JSON',
        'first apply ms',
        `replace ms (median [min–max] of ${REPLACE_RUNS})`,
      ],
      nftRuns.map((r) => [
        r.what,
        thousands(r.elements),
        `${(r.bytes / 1024).toFixed(0)} KiB`,
        ms(r.first),
        spreadMs(r.replace),
      ]),
    ),
    '',
    `The engine's own path: its \`inet ferry\` table (kill switch on, split on with the home country's sets)`,
    `built by GeoSplitTunnel.sets(), guardPolicy() and protectionTable(), put in force by NftFirewall`,
    `(\`nft -j -f\` through \`ip netns exec\`, temp file included) in a fresh instance per connect cycle;`,
    `ms: median [min–max] of ${PURE_RUNS} (pure steps) or ${ENGINE_RUNS} cycles (nft steps). Load average`,
    `(1 / 5 / 15 min) at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')}, ${cpus().length} CPU(s).`,
    '',
    table(
      ['engine step', 'home', 'elements', 'batch JSON', 'ms', 'target'],
      engineRuns.flatMap((r) => [
        [
          'GeoSplitTunnel.sets() (fresh instance, dataset loaded)',
          r.country,
          thousands(r.elements),
          '',
          spreadMs(r.sets),
          '',
        ],
        ['table body: guardPolicy() + protectionTable()', r.country, '', '', spreadMs(r.body), ''],
        ...ENGINE_STEPS.map((step) => {
          const { bytes, ms } = r.steps.get(step)!;
          return [
            `NftFirewall ${step}`,
            r.country,
            step === ENGINE_STEPS[0] ? thousands(r.elements) : '',
            bytes < 10_240 ? `${thousands(bytes)} B` : `${(bytes / 1024).toFixed(0)} KiB`,
            spreadMs(ms),
            step === ENGINE_STEPS[0] || INCREMENTAL.includes(step) ? applyVerdict(ms) : '',
          ];
        }),
      ]),
    ),
    '',
    `The engine's resolver (DnsProxy on loopback, the tunnel's and the home network's resolvers stood`,
    `in for by loopback authorities that answer at once; sequential questions; ms). "Added" is the`,
    `figure less the same figure of the tunnel's resolver asked directly: what the resolver costs.`,
    '',
    table(
      ['question', 'n', 'median ms', 'p99 ms', 'added: median / p99 ms'],
      resolver.map((r) => [
        r.what,
        String(r.questions),
        ms(r.median),
        ms(r.p99),
        r.baseline ? `${ms(r.median - r.baseline.median)} / ${ms(r.p99 - r.baseline.p99)}` : '',
      ]),
    ),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  log('done');
  return 0;
}

runBench('bench', main);
