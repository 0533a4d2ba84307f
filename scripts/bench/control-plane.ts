// Control-plane benchmark: GET /health vs POST /connect throughput and latency at 200 connections, on SQLite and PostgreSQL.
//
// Run it through `bash scripts/bench/control-plane.sh` (builds, starts a throwaway PostgreSQL, sets FERRY_PG_URL).
// Results (a table) go to stdout, progress to stderr. Exit status 1 when a request failed (non-2xx or socket
// errors) or something could not be set up; the performance targets are reported, not enforced.
//
// Environment:
//   FERRY_PG_URL              PostgreSQL to create the benchmark's database on (required)
//   FERRY_BENCH_DURATION      seconds per measured run (default 10)
//   FERRY_BENCH_WARMUP        seconds of warm-up per route (default 2)
//   FERRY_BENCH_CONNECTIONS   concurrent connections (default 200)
//   FERRY_BENCH_BACKENDS      comma-separated subset of sqlite,postgres (default both)
//   FERRY_BENCH_CPU_PROF      a directory: run the server under `node --cpu-prof` and write its profiles there
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { controlRouteUrl, createControlClient, type ControlClient } from '../../contracts/index.js';

// dist/scripts/bench/control-plane.js -> repository root.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_BIN = join(ROOT, 'bin', 'ferry-server');

const CONNECTIONS = intEnv('FERRY_BENCH_CONNECTIONS', 200);
const DURATION_S = intEnv('FERRY_BENCH_DURATION', 10);
const WARMUP_S = intEnv('FERRY_BENCH_WARMUP', 2);
const ACCOUNTS = 5;
const DEVICES_PER_ACCOUNT = 10; // the premium plan's limit
const HEARTBEAT_MS = 3_000;
const NODE_HEALTHY_SECONDS = 30;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
/** Hard cap on the whole run; the benchmark aborts (and cleans up) past it. */
const OVERALL_TIMEOUT_MS = 170_000;

const TARGET_RATIO = 0.3;
const TARGET_CONNECT_P99_MS = 50;

const CONNECT_BODY = JSON.stringify({
  encryption: 'AES-256-GCM',
  protocol: 'WireGuard',
  region: 'auto',
  usage: 'remote-work',
});

type Backend = 'sqlite' | 'postgres';

interface RouteResult {
  backend: Backend;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface Server {
  base: string;
  child: ChildProcess;
  logPath: string;
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a whole number above 0, got "${raw}"`);
  return n;
}

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function publicKey(): string {
  return randomBytes(32).toString('base64');
}

// ---- cleanup ------------------------------------------------------------------------------------

const cleanups: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | undefined;

function onCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const fn = cleanups.pop()!;
      try {
        await fn();
      } catch (e) {
        progress(`cleanup failed: ${(e as Error).message}`);
      }
    }
  })();
  return cleaning;
}

// ---- control-plane client ------------------------------------------------------------------------

/** The control plane as the holder of `token` (none: public routes only). */
function controlAs(base: string, token?: string): ControlClient {
  return createControlClient({
    baseUrl: base,
    fetch,
    ...(token === undefined ? {} : { token: () => token }),
    timeoutMs: 10_000,
  });
}

// ---- server process -------------------------------------------------------------------------------

async function startServer(
  backend: Backend,
  dataDir: string,
  adminToken: string,
  databaseUrl?: string,
): Promise<Server> {
  const args = [
    SERVER_BIN,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--no-rate-limits',
    '--node-healthy-seconds',
    String(NODE_HEALTHY_SECONDS),
  ];
  if (databaseUrl) args.push('--database-url', databaseUrl);
  const nodeArgs: string[] = [];
  const profDir = process.env.FERRY_BENCH_CPU_PROF;
  if (profDir) {
    mkdirSync(profDir, { recursive: true });
    nodeArgs.push(
      '--cpu-prof',
      '--cpu-prof-dir',
      resolve(profDir),
      '--cpu-prof-name',
      `server-${backend}-${Date.now()}.cpuprofile`,
    );
  }
  const logPath = join(dataDir, 'server.log');
  const log: WriteStream = createWriteStream(logPath);
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      FERRY_ADMIN_TOKEN: adminToken,
      FERRY_LOG_LEVEL: process.env.FERRY_LOG_LEVEL ?? 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  onCleanup(async () => {
    await stopServer(child, exited);
    log.end();
  });
  child.stderr!.pipe(log, { end: false });

  const base = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${backend} server did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const lines = createInterface({ input: child.stdout! });
    let found = false;
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      if (found) return;
      try {
        const entry = JSON.parse(line) as { msg?: string; listening?: string };
        if (entry.msg === 'control plane ready' && entry.listening) {
          found = true;
          clearTimeout(timer);
          done(entry.listening.replace('0.0.0.0', '127.0.0.1'));
        }
      } catch {
        // not a JSON line; kept in the log
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!found)
        fail(
          new Error(
            `${backend} server exited before it was ready (code ${code}, signal ${signal}); log:\n${tail(logPath)}`,
          ),
        );
    });
  });
  return { base, child, logPath };
}

async function stopServer(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const stopped = await Promise.race([
    exited.then(() => true),
    sleep(STOP_TIMEOUT_MS).then(() => false),
  ]);
  if (!stopped) {
    progress(`server pid ${child.pid} ignored SIGTERM; killing it`);
    child.kill('SIGKILL');
    await exited;
  }
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

// ---- fixture ----------------------------------------------------------------------------------------

async function setUpFixture(
  base: string,
  adminToken: string,
): Promise<{ deviceTokens: string[]; stopHeartbeats: () => Promise<void> }> {
  const admin = controlAs(base, adminToken);
  const node = await admin.adminCreateNode({
    body: {
      region: 'global',
      endpoint_host: '127.0.0.1',
      wireguard_port: 51820,
      ferry_port: 51821,
      capacity_mbps: 10000,
    },
  });
  const asNode = controlAs(base, node.token);
  await asNode.nodeRegister({
    body: { wireguard_public_key: publicKey(), ferry_public_key: publicKey() },
  });
  const beat = () => asNode.nodeHeartbeat({ body: { load: 0.1, rx_bps: 0, tx_bps: 0 } });
  await beat();
  let beating: Promise<unknown> = Promise.resolve();
  let failure: Error | undefined;
  const timer = setInterval(() => {
    beating = beat().catch((e: unknown) => {
      failure ??= e as Error;
      progress(`heartbeat failed: ${(e as Error).message}`);
    });
  }, HEARTBEAT_MS);
  const stopHeartbeats = async () => {
    clearInterval(timer);
    await beating;
    if (failure) throw new Error(`a node heartbeat failed during the run: ${failure.message}`);
  };
  onCleanup(async () => clearInterval(timer));

  const deviceTokens: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const { account_number } = await controlAs(base).createAccount({ body: {} });
    await admin.adminSetPlan({ params: { number: account_number }, body: { plan: 'premium' } });
    const sessions = await Promise.all(
      Array.from({ length: DEVICES_PER_ACCOUNT }, (_, d) =>
        controlAs(base).createSession({
          body: {
            account_number,
            device: {
              name: `bench-${a}-${d}`,
              kind: 'laptop',
              wireguard_public_key: publicKey(),
              ferry_public_key: publicKey(),
            },
          },
        }),
      ),
    );
    for (const s of sessions) deviceTokens.push(s.token);
  }
  // One connect before the load: it fails here, readably, if the fixture is wrong.
  await controlAs(base, deviceTokens[0]).connect({ body: JSON.parse(CONNECT_BODY) });
  return { deviceTokens, stopHeartbeats };
}

// ---- load -------------------------------------------------------------------------------------------

function load(
  base: string,
  route: 'health' | 'connect',
  seconds: number,
  deviceTokens: readonly string[],
): Promise<autocannon.Result> {
  let next = 0;
  const opts: autocannon.Options =
    route === 'health'
      ? { url: controlRouteUrl(base, 'health'), method: 'GET' }
      : {
          url: controlRouteUrl(base, 'connect'),
          method: 'POST',
          body: CONNECT_BODY,
          headers: { 'content-type': 'application/json' },
          // Each connection signs its requests as one device; the devices are spread evenly over the connections.
          setupClient: (client) => {
            const token = deviceTokens[next++ % deviceTokens.length]!;
            client.setHeaders({
              'content-type': 'application/json',
              authorization: `Bearer ${token}`,
            });
          },
        };
  return autocannon({ ...opts, connections: CONNECTIONS, duration: seconds, timeout: 10 });
}

function summarize(backend: Backend, route: string, r: autocannon.Result): RouteResult {
  return {
    backend,
    route,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

async function benchBackend(backend: Backend, pgUrl: string): Promise<RouteResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), `ferry-bench-${backend}-`));
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl: string | undefined;
  if (backend === 'postgres') databaseUrl = await createDatabase(pgUrl);

  const adminToken = randomBytes(24).toString('hex');
  progress(`${backend}: starting ferry-server`);
  const server = await startServer(backend, dataDir, adminToken, databaseUrl);
  progress(
    `${backend}: listening on ${server.base} (log ${server.logPath}); creating ${ACCOUNTS * DEVICES_PER_ACCOUNT} devices and a node`,
  );
  const { deviceTokens, stopHeartbeats } = await setUpFixture(server.base, adminToken);

  const results: RouteResult[] = [];
  for (const route of ['health', 'connect'] as const) {
    progress(`${backend}: ${route}: warm-up ${WARMUP_S} s`);
    await load(server.base, route, WARMUP_S, deviceTokens);
    progress(`${backend}: ${route}: ${DURATION_S} s at ${CONNECTIONS} connections`);
    const r = summarize(backend, route, await load(server.base, route, DURATION_S, deviceTokens));
    progress(
      `${backend}: ${route}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.total} responses, ${r.non2xx} non-2xx, ${r.errors} errors`,
    );
    results.push(r);
  }
  await stopHeartbeats();
  if (results.some((r) => r.non2xx > 0 || r.errors > 0)) {
    progress(`${backend}: server log tail:\n${tail(server.logPath)}`);
  }
  return results;
}

async function createDatabase(pgUrl: string): Promise<string> {
  const name = `ferry_bench_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// ---- report -----------------------------------------------------------------------------------------

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ');
  return [
    line(rows[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
  ].join('\n');
}

function report(
  results: readonly RouteResult[],
  backends: readonly Backend[],
): { targetsHeld: boolean; failed: string[] } {
  const rows: string[][] = [
    ['backend', 'route', 'requests/s', 'p50 ms', 'p99 ms', 'responses', 'non-2xx', 'errors'],
  ];
  for (const r of results) {
    rows.push([
      r.backend,
      r.route,
      r.rps.toFixed(0),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      String(r.total),
      String(r.non2xx),
      String(r.errors),
    ]);
  }
  const out: string[] = [
    `Ferry control plane: ${CONNECTIONS} connections, ${DURATION_S} s per route after ${WARMUP_S} s warm-up, ` +
      `${ACCOUNTS * DEVICES_PER_ACCOUNT} devices, node ${process.version}`,
    '',
    table(rows),
    '',
  ];
  const targetRows: string[][] = [['backend', 'target', 'value', 'needed', 'holds']];
  let targetsHeld = true;
  const failed: string[] = [];
  for (const backend of backends) {
    const health = results.find((r) => r.backend === backend && r.route === 'health');
    const connect = results.find((r) => r.backend === backend && r.route === 'connect');
    if (!health || !connect) continue;
    const ratio = connect.rps / health.rps;
    const ratioOk = ratio >= TARGET_RATIO;
    const p99Ok = connect.p99 < TARGET_CONNECT_P99_MS;
    targetsHeld &&= ratioOk && p99Ok;
    targetRows.push([
      backend,
      'connect/health throughput',
      `${(ratio * 100).toFixed(1)}%`,
      `>= ${TARGET_RATIO * 100}%`,
      ratioOk ? 'yes' : 'NO',
    ]);
    targetRows.push([
      backend,
      `connect p99 @ ${CONNECTIONS} conns`,
      `${connect.p99.toFixed(1)} ms`,
      `< ${TARGET_CONNECT_P99_MS} ms`,
      p99Ok ? 'yes' : 'NO',
    ]);
    for (const r of [health, connect]) {
      if (r.non2xx > 0 || r.errors > 0)
        failed.push(
          `${backend} ${r.route}: ${r.non2xx} non-2xx, ${r.errors} errors (${r.timeouts} timeouts)`,
        );
    }
  }
  out.push(table(targetRows), '');
  out.push(`targets: ${targetsHeld ? 'all hold' : 'MISSED'}`);
  out.push(
    `non-2xx check: ${failed.length ? `FAILED (${failed.join('; ')})` : 'passed (0 non-2xx, 0 errors)'}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  return { targetsHeld, failed };
}

// ---- main -------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const pgUrl = process.env.FERRY_PG_URL;
  if (!pgUrl)
    throw new Error('FERRY_PG_URL is not set; run through scripts/bench/control-plane.sh');
  const backends = (process.env.FERRY_BENCH_BACKENDS ?? 'sqlite,postgres')
    .split(',')
    .map((s) => s.trim()) as Backend[];
  for (const b of backends)
    if (b !== 'sqlite' && b !== 'postgres') throw new Error(`unknown backend "${b}"`);

  const results: RouteResult[] = [];
  for (const backend of backends) {
    results.push(...(await benchBackend(backend, pgUrl)));
    await cleanupAll(); // stop this backend's server before the next one starts
    cleaning = undefined;
  }
  const { failed } = report(results, backends);
  return failed.length ? 1 : 0;
}

const deadline = setTimeout(() => {
  progress(`gave up after ${OVERALL_TIMEOUT_MS / 1000} s`);
  void cleanupAll().finally(() => process.exit(1));
}, OVERALL_TIMEOUT_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: cleaning up`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

let code = 1;
try {
  code = await main();
} catch (e) {
  progress(`FAILED: ${(e as Error).stack ?? String(e)}`);
  code = 1;
} finally {
  await cleanupAll();
  clearTimeout(deadline);
}
process.exit(code);
