// Relay benchmark: feed apply time and memory at 10k/100k peers, change propagation, and iperf3 throughput through a netns relay.
//
// Run it through `bash scripts/bench/relay.sh` (builds first). Results table on stdout, progress
// on stderr. Everything runs on a Testbed (e2e/netns/testbed.ts), whose stop() removes every
// namespace, process and interface, also when a step fails or the run is interrupted.
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { createControlClient, type FetchLike } from '../../contracts/index.js';
import { shardOf } from '../../contracts/tunnel-addresses.js';
import { generateKeyPair } from '../../relay/keys.js';
import { uapiExchange as exchange } from '../../platform/os/uapi.js';
import { UAPI_DIR } from '../../platform/os/wireguard-go.js';
import { tunnelAddresses } from '../../server/domain/addresses.js';
import { SQLITE_FILE } from '../../server/store/open.js';
import { requireTools, sh, type ManagedProcess } from '../../e2e/netns/test-network.js';
import { Testbed, type Device } from '../../e2e/netns/testbed.js';

/** The repository root (this file runs as dist/scripts/bench/relay.js). */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/**
 * Feed sizes. 100,000 is over wireguard-go's limit of 65,536 peers per interface, so the relay
 * serves it on two shards (interfaces `<base>` and `<base>s1`, two wireguard-go processes).
 */
const SIZES = [10_000, 100_000] as const;
/**
 * The production cadence: the control plane's default --node-healthy-seconds 30 asks relays to
 * beat every 10 s (the testbed's 5 s / 1 s would make every heartbeat's full UAPI read weigh
 * on the figures far more than in production).
 */
const NODE_HEALTHY_SECONDS = 30;
const HEARTBEAT_SECONDS = 10;
const DEVICES_PER_ACCOUNT = 10;
const PROPAGATION_RUNS = 10;
const IPERF_SECONDS = 5;
const IPERF_PORT = 5201;
const WG_PORT = 51820;
const REGION = 'global';
/** How long a cold relay may take to apply a snapshot before the size counts as failed. */
const SYNC_TIMEOUT_MS = 300_000;

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const fmtInt = (n: number) => n.toLocaleString('en-US');
const fmtS = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const fmtMs = (ms: number) => `${ms.toFixed(0)} ms`;
const fmtMiB = (kb: number | undefined) =>
  kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(0)} MiB`;

/**
 * A full UAPI `get=1` dump as a Buffer, read without the relay's UAPI client: the plain
 * figure its exchange() is measured against.
 */
function uapiDump(iface: string, timeoutMs = 60_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(path.join(UAPI_DIR, `${iface}.sock`));
    const chunks: Buffer[] = [];
    let tail = Buffer.alloc(0);
    let done = false;
    const timer = setTimeout(() => socket.destroy(new Error('UAPI: no answer')), timeoutMs);
    const finish = (e?: Error, v?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (e) reject(e);
      else resolve(v!);
    };
    socket.on('connect', () => socket.write('get=1\n\n'));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = Buffer.concat([tail, chunk]).subarray(-64);
      const m = /(?:^|\n)errno=(-?\d+)\n\n$/.exec(tail.toString('latin1'));
      if (!m) return;
      if (m[1] !== '0') finish(new Error(`UAPI errno ${m[1]}`));
      else finish(undefined, Buffer.concat(chunks));
    });
    socket.on('error', (e) => finish(e));
    socket.on('close', () => finish(new Error('UAPI: closed before the answer')));
  });
}

function countPeers(dump: Buffer): number {
  const needle = Buffer.from('\npublic_key=');
  let n = 0;
  for (let i = dump.indexOf(needle); i >= 0; i = dump.indexOf(needle, i + 1)) n++;
  // The device's own line comes first and is `private_key=`, so a dump starting with
  // `public_key=` (no device key) would miss one peer; not the case for a configured relay.
  return n;
}

const hasKey = (dump: Buffer, publicKey: string) => dump.includes(`public_key=${hex(publicKey)}\n`);

/** The interface of shard k of a relay whose --interface is `base` (relay/wireguard/shards.ts). */
const shardInterface = (base: string, k: number) => (k === 0 ? base : `${base}s${k}`);

/** Whether `name` is one of the relay's interfaces: `base` itself or `<base>s<k>`. */
const isRelayInterface = (base: string, name: string) =>
  name === base || (name.startsWith(`${base}s`) && /^[1-9]\d*$/.test(name.slice(base.length + 1)));

/** Every interface of the relay that has a UAPI socket now, shard 0 first. */
function relayInterfaces(base: string): string[] {
  let files: string[];
  try {
    files = readdirSync(UAPI_DIR);
  } catch {
    return [];
  }
  const shard = (n: string) => (n === base ? 0 : Number(n.slice(base.length + 1)));
  return files
    .filter((f) => f.endsWith('.sock'))
    .map((f) => f.slice(0, -'.sock'.length))
    .filter((n) => isRelayInterface(base, n))
    .sort((a, b) => shard(a) - shard(b));
}

/** Peers over every interface of the relay, one UAPI dump each, in turn. */
async function countAllPeers(base: string): Promise<{ peers: number; interfaces: string[] }> {
  const interfaces = relayInterfaces(base);
  let peers = 0;
  for (const iface of interfaces) peers += countPeers(await uapiDump(iface));
  return { peers, interfaces };
}

/** VmRSS and VmHWM (kB) of a process. */
function memory(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** The relay's node process and its wireguard-go processes (one per shard), through the namespace's pids. */
function relayPids(ns: string, base: string): { node?: number; wg: number[] } {
  const out: { node?: number; wg: number[] } = { wg: [] };
  for (const p of sh('ip', ['netns', 'pids', ns]).split(/\s+/).filter(Boolean)) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv.some((a) => a.endsWith('ferry-relay'))) out.node = Number(p);
    else if (
      path.basename(argv[0] ?? '') === 'wireguard-go' &&
      argv.some((a) => isRelayInterface(base, a))
    )
      out.wg.push(Number(p));
  }
  return out;
}

/** Pino lines of the relay's output (JSON objects). */
function relayLog(proc: ManagedProcess, from = 0): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const line of proc.output().slice(from).split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a partial line at the end of the buffer
    }
  }
  return lines;
}

/**
 * Adds premium accounts and their devices straight into the control plane's SQLite file (the
 * control plane must be stopped) until `total` devices exist. Public keys are random 32 bytes.
 */
function fillDatabase(
  dbFile: string,
  total: number,
  accountOffset: number,
): { accounts: number; devices: number } {
  const db = new BetterSqlite3(dbFile);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    const row = db
      .prepare('select count(*) as n, coalesce(max(seq), 0) as s from devices')
      .get() as {
      n: number;
      s: number;
    };
    let seq = row.s;
    const missing = total - row.n;
    const addAccount = db.prepare(
      "insert into accounts (number, password_hash, plan) values (?, null, 'premium')",
    );
    const addDevice = db.prepare(
      `insert into devices (seq, id, account_id, name, kind, wireguard_public_key,
         ferry_public_key, tunnel_ipv4, tunnel_ipv6, token_hash)
       values (?, ?, ?, ?, 'laptop', ?, ?, ?, ?, ?)`,
    );
    let accounts = 0;
    db.transaction(() => {
      for (let made = 0; made < missing; accounts++) {
        const number = `9${String(accountOffset + accounts).padStart(15, '0')}`;
        const accountId = addAccount.run(number).lastInsertRowid;
        for (let i = 0; i < DEVICES_PER_ACCOUNT && made < missing; i++, made++) {
          seq++;
          const { ipv4, ipv6 } = tunnelAddresses(seq);
          addDevice.run(
            seq,
            `dev_bench${seq}`,
            accountId,
            `bench-${seq}`,
            randomBytes(32).toString('base64'),
            randomBytes(32).toString('base64'),
            ipv4,
            ipv6,
            randomBytes(32).toString('hex'),
          );
        }
      }
    })();
    return { accounts, devices: Math.max(total, row.n) };
  } finally {
    db.close();
  }
}

interface RelayNode {
  host: string;
  ns: string;
  address: string;
  iface: string;
  token: string;
  process?: ManagedProcess;
}

function spawnRelay(bed: Testbed, r: RelayNode): ManagedProcess {
  r.process = bed.net.spawn(
    r.host,
    `relay-${r.host}`,
    [
      process.execPath,
      path.join(REPO, 'bin/ferry-relay'),
      '--control-url',
      bed.controlUrl,
      ...bed.caArgs,
      '--wireguard-port',
      String(WG_PORT),
      '--uplink',
      'eth0',
      '--state-dir',
      path.join(bed.net.dir, `relay-${r.host}`),
      '--interface',
      r.iface,
      '--heartbeat-seconds',
      String(HEARTBEAT_SECONDS),
      '--peer-idle-seconds',
      '3',
    ],
    { FERRY_NODE_TOKEN: r.token },
  );
  return r.process;
}

interface SyncResult {
  size: number;
  peers: number;
  /** The relay's interfaces (shards) after the apply. */
  interfaces: string[];
  /** Set when the relay stopped short of `size`: the error it logged. */
  stuck?: string;
  registeredMs: number | undefined;
  upMs: number | undefined;
  /** The relay's log of the applied snapshot (after its last UAPI set): every peer is on an interface. */
  appliedMs: number | undefined;
  /** When stuck: when the interfaces' peer count stopped growing (1 s polls). */
  plateauMs: number | undefined;
  node: { rss: number; hwm: number } | undefined;
  /** Summed over every wireguard-go process of the relay (hwm: the sum of each one's peak). */
  wg: { rss: number; hwm: number; processes: number } | undefined;
  dumpMs: number;
  relayExchangeMs: number;
  feedMs: number;
  feedBytes: number;
}

/** How long the peer count may stand still, with the relay logging feed errors, before we call it stuck. */
const STUCK_MS = 15_000;

/** Memory of several processes, summed; undefined when none could be read. */
function sumMemory(pids: number[]): { rss: number; hwm: number; processes: number } | undefined {
  const all = pids.map(memory).filter((m): m is { rss: number; hwm: number } => m !== undefined);
  if (!all.length) return undefined;
  return {
    rss: all.reduce((a, m) => a + m.rss, 0),
    hwm: all.reduce((a, m) => a + m.hwm, 0),
    processes: all.length,
  };
}

/**
 * Starts the relay cold and times it until its interfaces hold `expected` peers. The end is the
 * relay's own log of the applied snapshot, confirmed by one UAPI read per interface: polling full
 * UAPI dumps faster would compete with the relay for wireguard-go's lock and slow what it measures.
 */
async function measureSync(
  bed: Testbed,
  r: RelayNode,
  expected: number,
  feedAfter: () => Promise<{ ms: number; bytes: number }>,
): Promise<SyncResult> {
  const wall0 = Date.now();
  const t0 = performance.now();
  const proc = spawnRelay(bed, r);
  let stuck: string | undefined;
  let applied: Record<string, unknown> | undefined;
  let last = 0;
  let lastChange = t0;
  let lastPoll = 0;
  for (;;) {
    if (proc.child.exitCode !== null)
      throw new Error(`relay exited (${proc.child.exitCode}):\n${proc.output().slice(-3000)}`);
    if (performance.now() - t0 > SYNC_TIMEOUT_MS)
      throw new Error(
        `relay holds ${last} of ${expected} peers after ${SYNC_TIMEOUT_MS / 1000} s; its last log lines:\n${proc.output().slice(-3000)}`,
      );
    const lines = relayLog(proc);
    applied = lines.find((l) => l.msg === 'peer feed applied' && l.snapshot === true);
    if (applied) break;
    if (performance.now() - lastPoll > 1000) {
      lastPoll = performance.now();
      let shards = 0;
      try {
        const all = await countAllPeers(r.iface);
        shards = all.interfaces.length;
        if (all.peers !== last) lastChange = performance.now();
        last = all.peers;
      } catch {
        // an interface is not up yet
      }
      log(`  ${fmtS(performance.now() - t0)}: ${fmtInt(last)} peers on ${shards} interface(s)`);
      const failures = lines.filter(
        (l) => typeof l.level === 'number' && l.level >= 40 && typeof l.err === 'string',
      );
      if (failures.length && performance.now() - lastChange > STUCK_MS) {
        const feedFailure = failures.filter((l) => String(l.msg).includes('peer feed')).at(-1);
        stuck = String((feedFailure ?? failures.at(-1)!).err);
        log(`  stuck at ${fmtInt(last)} peers; the relay logged ${failures.length} failure(s):`);
        for (const f of new Set(failures.map((l) => `${String(l.msg)}: ${String(l.err)}`)))
          log(`    ${f}`);
        break;
      }
    }
    await sleep(50);
  }
  const pids = relayPids(r.ns, r.iface);
  const node = pids.node === undefined ? undefined : memory(pids.node);
  const wg = sumMemory(pids.wg);
  let t = performance.now();
  const { peers, interfaces } = await countAllPeers(r.iface);
  const dumpMs = performance.now() - t;
  if (applied && peers < expected)
    throw new Error(
      `the relay logged its snapshot applied but holds ${peers} of ${expected} peers on ${interfaces.join(', ')}`,
    );
  if (wg && wg.processes !== interfaces.length)
    throw new Error(
      `${wg.processes} wireguard-go process(es) for ${interfaces.length} interface(s) (${interfaces.join(', ')})`,
    );
  // What one heartbeat's status read costs at this size, with the relay's own UAPI client
  // (the relay reads every shard at once, as here).
  t = performance.now();
  await Promise.all(
    interfaces.map((i) => exchange(path.join(UAPI_DIR, `${i}.sock`), 'get=1\n\n', 120_000)),
  );
  const relayExchangeMs = performance.now() - t;
  const feed = await feedAfter();
  const lines = relayLog(proc);
  const at = (msg: string) => {
    const time = lines.find((l) => l.msg === msg)?.time;
    return typeof time === 'number' ? time - wall0 : undefined;
  };
  return {
    size: expected,
    peers,
    interfaces,
    ...(stuck === undefined ? {} : { stuck }),
    registeredMs: at('registered'),
    upMs: at('relay up'),
    appliedMs: typeof applied?.time === 'number' ? applied.time - wall0 : undefined,
    plateauMs: stuck === undefined ? undefined : lastChange - t0,
    node: node && { rss: node.rss, hwm: Math.max(node.hwm, memory(pids.node!)?.hwm ?? 0) },
    wg,
    dumpMs,
    relayExchangeMs,
    feedMs: feed.ms,
    feedBytes: feed.bytes,
  };
}

interface PropagationResult {
  /** Request start to the relay's log of the applied delta (after its UAPI set). */
  logged: number[];
  /** Request start to the new key in a UAPI dump, polled every 5 ms (small sizes only). */
  polled: number[];
}

/**
 * Rotates a device's WireGuard key through the API and times until the relay has the new key on
 * the device's shard interface (shardOf(device ipv4)):
 * by the relay's own log time of the applied delta (checked on the interface afterwards) and,
 * when `poll`, in separate runs, by polling the interface every 5 ms (not at scale: a 60k-peer
 * UAPI dump takes longer than the change itself, and the polls slow the relay's own sets).
 */
async function measurePropagation(
  bed: Testbed,
  r: RelayNode,
  device: Device,
  poll: boolean,
): Promise<PropagationResult> {
  const iface = shardInterface(r.iface, shardOf(device.ipv4));
  const result: PropagationResult = { logged: [], polled: [] };
  for (const polling of poll ? [false, true] : [false]) {
    for (let i = 0; i < PROPAGATION_RUNS; i++) {
      const key = generateKeyPair().publicKey;
      const wall0 = Date.now();
      const t0 = performance.now();
      await bed.control(device.token).rotateKeys({
        params: { id: device.id },
        body: { wireguard_public_key: key },
      });
      if (polling) {
        for (;;) {
          if (hasKey(await uapiDump(iface), key)) break;
          if (performance.now() - t0 > 10_000)
            throw new Error('the new key never reached the relay');
          await sleep(5);
        }
        result.polled.push(performance.now() - t0);
      } else {
        const line = await bed.net.waitFor('the relay to apply the change', 10_000, () =>
          relayLog(r.process!).find(
            (l) =>
              l.msg === 'peer feed applied' &&
              typeof l.time === 'number' &&
              l.time >= wall0 &&
              typeof l.upserts === 'number' &&
              l.upserts > 0,
          ),
        );
        if (!hasKey(await uapiDump(iface), key))
          throw new Error(`the relay logged the change but ${iface} lacks the new key`);
        result.logged.push((line.time as number) - wall0);
      }
      await sleep(200);
    }
  }
  return result;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Throughput {
  bps: number;
  /** The relay interface and UDP port the client's connect answer pointed at. */
  iface: string;
  port: number;
}

/**
 * A premium client on its own host, connected through the relay with the testbed's `connect`
 * (the answer's port already includes the device's shard); returns its iperf3 rate.
 */
async function tunnelThroughput(bed: Testbed, r: RelayNode, host: string): Promise<Throughput> {
  const account = await bed.newAccount('premium');
  const client = await bed.addClient(host, await bed.newDevice(account, host));
  const shard = shardOf(client.device.ipv4);
  const iface = shardInterface(r.iface, shard);
  await bed.net.waitFor(`the relay to be healthy`, 30_000, async () => {
    const { nodes } = await bed.control(client.device.token).listNodes({
      query: { region: REGION },
    });
    return nodes.some((n) => n.endpoint_host === r.address && n.healthy) ? true : undefined;
  });
  await bed.net.waitFor(`${host}'s device on ${iface}`, 30_000, async () =>
    hasKey(await uapiDump(iface), client.device.publicKey) ? true : undefined,
  );
  const answer = await bed.connect(client, { region: REGION });
  const port = Number(answer.node.wireguard_port);
  if (answer.node.endpoint_host !== r.address)
    throw new Error(`connect chose ${answer.node.endpoint_host}, not the relay ${r.address}`);
  if (port !== WG_PORT + shard)
    throw new Error(
      `connect answered port ${port} for shard ${shard} (expected ${WG_PORT + shard})`,
    );
  await bed.net.waitFor(`${host} to exit through the relay`, 30_000, () =>
    bed.echoFrom(host, 1) === r.address ? true : undefined,
  );
  return { bps: await bed.iperf(host, IPERF_PORT, IPERF_SECONDS), iface, port };
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const message = (e: unknown) => ((e as Error).message ?? String(e)).split('\n')[0]!;

async function main(): Promise<void> {
  const started = performance.now();
  requireTools(['ip', 'nft', 'wireguard-go', 'wg', 'iperf3', 'curl', 'sysctl']);
  log('starting the testbed');
  const bed = await Testbed.start({
    nodeHealthySeconds: NODE_HEALTHY_SECONDS,
    relayHeartbeatSeconds: HEARTBEAT_SECONDS,
  });
  let stopped = false;
  /** Every failed measurement, in order; any makes the run exit non-zero. */
  const failures: string[] = [];
  const fail = (what: string, e: unknown) => {
    failures.push(`${what}: ${message(e)}`);
    log(`  FAILED ${what}: ${(e as Error).stack ?? String(e)}`);
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    log('cleaning up the testbed');
    await bed.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void stop().finally(() => process.exit(1));
    });

  try {
    bed.startIperfServer(IPERF_PORT);
    const dbFile = path.join(bed.net.dir, 'control', SQLITE_FILE);

    // Device creation through the API, to see whether the large sets could go that way.
    log('timing device creation through the HTTP API');
    let t = performance.now();
    const sampleAccount = await bed.newAccount('premium');
    const accountMs = performance.now() - t;
    const sampleDevices = DEVICES_PER_ACCOUNT - 1;
    t = performance.now();
    for (let i = 0; i < sampleDevices; i++) await bed.newDevice(sampleAccount, `sample-${i}`);
    const perDeviceMs = (performance.now() - t) / sampleDevices;

    // The raw path first, while nothing else runs: the client's own host reaches the echo host
    // through the router, no tunnel.
    log(`iperf3 ${IPERF_SECONDS} s on the raw path`);
    let raw: number | undefined;
    try {
      const rawClient = await bed.addClient('raw', await bed.newDevice(sampleAccount, 'raw'));
      raw = await bed.iperf(rawClient.host, IPERF_PORT, IPERF_SECONDS);
    } catch (e) {
      fail('iperf3 on the raw veth path', e);
    }

    const h = bed.net.addAccessHost('relay');
    const node = await bed.admin.adminCreateNode({
      body: {
        region: REGION,
        endpoint_host: h.address,
        wireguard_port: WG_PORT,
        capacity_mbps: 10_000,
      },
    });
    const relay: RelayNode = {
      host: 'relay',
      ns: h.ns,
      address: h.address,
      iface: `fy${bed.net.id}r0`,
      token: node.token,
    };

    const syncs: Array<SyncResult | { size: number; error: string }> = [];
    const props: Array<{ size: number; shard: string; result: PropagationResult | string }> = [];
    const rates: Array<{ label: string; result: Throughput | string }> = [];
    let accountOffset = 0;
    let insertMs = 0;

    for (const [phase, size] of SIZES.entries()) {
      log(`--- ${fmtInt(size)} peers ---`);
      if (relay.process) {
        const code = await relay.process.stop();
        if (code !== 0)
          fail(`relay exit code on SIGTERM before ${fmtInt(size)}`, new Error(String(code)));
      }
      await bed.stopControlPlane();
      log(`inserting devices into ${dbFile}`);
      t = performance.now();
      const filled = fillDatabase(dbFile, size, accountOffset);
      accountOffset += filled.accounts;
      insertMs += performance.now() - t;
      log(`  done in ${fmtS(performance.now() - t)}; starting the control plane`);
      await bed.startControlPlane();

      log('starting the relay cold; waiting for every peer on its interfaces');
      let sync: SyncResult;
      try {
        sync = await measureSync(bed, relay, filled.devices, async () => {
          // The snapshot the relay fetched, as the control plane serves it now: timed to its
          // last byte and measured on the wire, before the client checks it.
          const t0 = performance.now();
          const wire = { ms: 0, bytes: 0 };
          const measuring: FetchLike = async (url, init) => {
            const res = await bed.controlFetch(url, init);
            const body = await res.arrayBuffer();
            wire.ms = performance.now() - t0;
            wire.bytes = body.byteLength;
            return new Response(body, { status: res.status, headers: res.headers });
          };
          const token = relay.token;
          await createControlClient({
            baseUrl: bed.controlUrl,
            fetch: measuring,
            token: () => token,
            timeoutMs: SYNC_TIMEOUT_MS,
          }).nodePeers({ query: { after: 0, wait: 0 } });
          return wire;
        });
      } catch (e) {
        fail(`feed apply at ${fmtInt(filled.devices)} peers`, e);
        syncs.push({ size: filled.devices, error: message(e) });
        props.push({ size: filled.devices, shard: '-', result: 'not measured (no sync)' });
        rates.push({
          label: `through the relay (${fmtInt(filled.devices)} peers)`,
          result: 'not measured (no sync)',
        });
        continue;
      }
      syncs.push(sync);
      log(
        `  ${fmtInt(sync.peers)} peers on ${sync.interfaces.join(' + ')}; applied at ${sync.appliedMs === undefined ? 'never' : fmtS(sync.appliedMs)}; node RSS ${fmtMiB(sync.node?.rss)}, wireguard-go RSS ${fmtMiB(sync.wg?.rss)} over ${sync.wg?.processes ?? 0} process(es)`,
      );
      if (sync.stuck !== undefined) {
        // The relay never finishes its snapshot: it gets no deltas, so nothing new reaches it.
        failures.push(
          `feed apply at ${fmtInt(filled.devices)} peers: stuck at ${fmtInt(sync.peers)}: ${sync.stuck}`,
        );
        log('  skipping propagation and throughput: the relay never synced');
        props.push({ size: filled.devices, shard: '-', result: 'not measured (no sync)' });
        rates.push({
          label: `through the relay (${fmtInt(filled.devices)} peers)`,
          result: 'not measured (no sync)',
        });
        continue;
      }

      log('timing propagation of key rotations');
      let shardName = '-';
      try {
        const account = await bed.newAccount('premium');
        const device = await bed.newDevice(account, `prop-${phase}`);
        shardName = shardInterface(relay.iface, shardOf(device.ipv4));
        log(`  device ${device.ipv4} is on shard interface ${shardName}`);
        await bed.net.waitFor(`the new device on ${shardName}`, 30_000, async () =>
          hasKey(await uapiDump(shardName), device.publicKey) ? true : undefined,
        );
        const result = await measurePropagation(bed, relay, device, size <= 10_000);
        props.push({ size: filled.devices, shard: shardName, result });
        log(
          `  relay log: median ${fmtMs(median(result.logged))}, max ${fmtMs(Math.max(...result.logged))}`,
        );
      } catch (e) {
        fail(`propagation at ${fmtInt(filled.devices)} peers`, e);
        props.push({ size: filled.devices, shard: shardName, result: `FAILED: ${message(e)}` });
      }

      log(`iperf3 ${IPERF_SECONDS} s through the relay (${fmtInt(filled.devices)} peers)`);
      const label = `through the relay (${fmtInt(filled.devices)} peers)`;
      try {
        rates.push({ label, result: await tunnelThroughput(bed, relay, `client${phase}`) });
      } catch (e) {
        fail(`iperf3 through the relay at ${fmtInt(filled.devices)} peers`, e);
        rates.push({ label, result: `FAILED: ${message(e)}` });
      }
    }

    const wgVersion = sh('wireguard-go', ['--version']).split('\n')[0]!.trim();
    const stats = (xs: number[]) =>
      xs.length ? `${fmtMs(median(xs))} / ${fmtMs(Math.max(...xs))}` : '-';
    const applied = syncs.filter((s): s is SyncResult => 'peers' in s);
    const out: string[] = [];
    out.push(
      `Ferry relay benchmark — ${new Date().toISOString()}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${wgVersion}`,
      '',
      `1. Peer feed apply at scale (premium devices from a snapshot, relay started cold; times from relay spawn;`,
      `   relay heartbeat every ${HEARTBEAT_SECONDS} s, the default cadence; peers and wireguard-go memory summed over all shard interfaces)`,
      table(
        [
          'feed peers',
          'registered',
          'relay up',
          'all peers in wg',
          'peers in wg',
          'interfaces',
          'relay node RSS (peak)',
          'wireguard-go RSS (peak), all procs',
          'UAPI get: plain / relay exchange()',
          'GET snapshot',
        ],
        applied.map((s) => [
          fmtInt(s.size),
          s.registeredMs === undefined ? 'n/a' : fmtS(s.registeredMs),
          s.upMs === undefined ? 'n/a' : fmtS(s.upMs),
          s.appliedMs === undefined ? 'never' : fmtS(s.appliedMs),
          s.stuck === undefined
            ? fmtInt(s.peers)
            : `${fmtInt(s.peers)} (stuck from ${fmtS(s.plateauMs ?? 0)})`,
          `${s.interfaces.length} (${s.interfaces.join(', ')})`,
          `${fmtMiB(s.node?.rss)} (${fmtMiB(s.node?.hwm)})`,
          `${fmtMiB(s.wg?.rss)} (${fmtMiB(s.wg?.hwm)}), ${s.wg?.processes ?? 0} proc(s)`,
          `${fmtMs(s.dumpMs)} / ${fmtMs(s.relayExchangeMs)}`,
          `${fmtMs(s.feedMs)}, ${(s.feedBytes / 2 ** 20).toFixed(1)} MiB`,
        ]),
      ),
      ...applied
        .filter((s) => s.stuck !== undefined)
        .map(
          (s) =>
            `   ${fmtInt(s.size)}: FAILED — the relay stops at ${fmtInt(s.peers)} peers and retries the snapshot forever; it logged: ${s.stuck}`,
        ),
      ...syncs
        .filter((s): s is { size: number; error: string } => 'error' in s)
        .map((s) => `   ${fmtInt(s.size)}: FAILED — ${s.error}`),
      `   Devices were inserted into the control plane's SQLite file (${fmtS(insertMs)} in all): through the API an`,
      `   account took ${fmtMs(accountMs)} and a device (POST /sessions) ${fmtMs(perDeviceMs)}, i.e. ~${fmtS(perDeviceMs * 100_000)} for 100,000`,
      `   devices without rate limits; the default limit of 20 sign-ins per minute per address makes it ~${fmtInt(Math.round(100_000 / 20 / 60))} h.`,
      '',
      `2. Propagation: PUT /devices/:id/keys → new key applied on the device's shard interface (${PROPAGATION_RUNS} runs; median / max)`,
      table(
        [
          'peers on relay',
          'interface',
          "relay's apply log time",
          'UAPI poll every 5 ms',
          'min (log)',
        ],
        props.map(({ size, shard, result }) => [
          fmtInt(size),
          shard,
          typeof result === 'string' ? result : stats(result.logged),
          typeof result === 'string' ? '-' : stats(result.polled),
          typeof result === 'string' ? '-' : fmtMs(Math.min(...result.logged)),
        ]),
      ),
      '',
      `3. Throughput: iperf3 -t ${IPERF_SECONDS}, one TCP stream, client namespace → echo host (premium device, no rate limit)`,
      table(
        ['path', 'relay interface:port', 'Gbit/s', 'vs raw'],
        [
          [
            'raw veth path (no tunnel)',
            '-',
            raw === undefined ? 'FAILED' : (raw / 1e9).toFixed(2),
            '100%',
          ],
          ...rates.map((r) =>
            typeof r.result === 'string'
              ? [r.label, '-', r.result, '-']
              : [
                  r.label,
                  `${r.result.iface}:${r.result.port}`,
                  (r.result.bps / 1e9).toFixed(2),
                  raw === undefined ? '-' : `${((r.result.bps / raw) * 100).toFixed(0)}%`,
                ],
          ),
        ],
      ),
      `   Client and relay both run wireguard-go; every namespace shares the machine's ${os.cpus().length} CPU(s).`,
      '',
      ...(failures.length
        ? ['FAILED measurements:', ...failures.map((f) => `  - ${f}`), '']
        : ['All measurements succeeded.', '']),
      `Total run time: ${fmtS(performance.now() - started)}`,
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
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
