// Test harness: a control plane on a real SQLite file or a fresh PostgreSQL database, and a
// small client for it. Test code only.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import {
  createControlClient,
  type ControlClient,
  type PlatformTable,
} from '../../contracts/index.js';
import { buildControlPlane, type ControlPlane } from '../app.js';
import type { Clock } from '../domain/clock.js';
import type { RateLimitOptions } from '../http/rate-limits.js';
import { injectFetch } from './inject-fetch.js';

export type Backend = 'sqlite' | 'postgres';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * The backends the suite runs on. PostgreSQL is required (not skipped) when the test command
 * says so: a green run that silently skipped it would be a lie.
 */
export function backends(): Backend[] {
  if (process.env.FERRY_TEST_DATABASE_URL) return ['sqlite', 'postgres'];
  if (process.env.FERRY_REQUIRE_POSTGRES === '1') {
    throw new Error(
      'FERRY_REQUIRE_POSTGRES=1 but FERRY_TEST_DATABASE_URL is not set: run the suite with `npm test`',
    );
  }
  return ['sqlite'];
}

export function newPublicKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return der.subarray(der.length - 32).toString('base64');
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  /** A raw body string sent as is (malformed JSON tests). */
  raw?: string;
  headers?: Record<string, string>;
  prefix?: '/api/v1' | '/v1';
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

export interface Harness {
  plane: ControlPlane;
  backend: Backend;
  dataDir: string;
  databaseUrl: string | undefined;
  call(method: string, route: string, opts?: CallOptions): Promise<Reply>;
  /** The typed control client as the holder of `token` (none: public routes), in process. */
  client(token?: string): ControlClient;
  createAccount(password?: string): Promise<string>;
  signIn(
    accountNumber: string,
    device?: { name?: string; kind?: string },
    password?: string,
  ): Promise<{ token: string; device: any; reply: Reply }>;
  addNode(region: string, extra?: Record<string, unknown>): Promise<{ id: string; token: string }>;
  /** Adds a node, registers its keys and sends a first heartbeat: a healthy node. */
  /**
   * `probePort`: the node registers a latency probe responder there; `ferry: false`: a
   * WireGuard-only node (no Ferry port or key).
   */
  addHealthyNode(
    region: string,
    load?: number,
    opts?: { probePort?: number; ferry?: boolean },
  ): Promise<{ id: string; token: string }>;
  heartbeat(nodeToken: string, body?: Record<string, unknown>): Promise<Reply>;
  setPlan(accountNumber: string, plan: string): Promise<Reply>;
  close(): Promise<void>;
}

export async function freshPostgresDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ferry_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function startControlPlane(
  backend: Backend,
  opts: {
    rateLimits?: RateLimitOptions;
    nodeHealthyForMs?: number;
    clock?: Clock;
    dataDir?: string;
    databaseUrl?: string;
    /** What GET /diagnostics publishes (ferry-server --dns-leak-zone, --ipv6-probe). */
    dnsLeakZone?: string;
    ipv6Probe?: string;
    /** ferry-server --platforms-file's table; --platform-fresh-seconds in ms. */
    platforms?: PlatformTable;
    platformFreshMs?: number;
  } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'ferry-test-'));
  let pgDb: { url: string; drop(): Promise<void> } | undefined;
  let databaseUrl = opts.databaseUrl;
  if (backend === 'postgres' && !databaseUrl) {
    pgDb = await freshPostgresDatabase(process.env.FERRY_TEST_DATABASE_URL!);
    databaseUrl = pgDb.url;
  }
  const plane = await buildControlPlane({
    dataDir,
    databaseUrl,
    adminToken: ADMIN_TOKEN,
    rateLimits: opts.rateLimits,
    nodeHealthyForMs: opts.nodeHealthyForMs ?? 30_000,
    ...(opts.clock ? { clock: opts.clock } : {}),
    dnsLeakZone: opts.dnsLeakZone,
    ipv6Probe: opts.ipv6Probe,
    platforms: opts.platforms,
    platformFreshMs: opts.platformFreshMs,
    logger: pino({ level: 'silent' }),
    validateResponses: true,
  });

  const call: Harness['call'] = async (method, route, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let payload: string | undefined;
    if (o.raw !== undefined) payload = o.raw;
    else if (o.body !== undefined) payload = JSON.stringify(o.body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await plane.app.inject({
      method: method as 'GET',
      url: `${o.prefix ?? '/api/v1'}${route}`,
      headers,
      ...(payload === undefined ? {} : { payload }),
    });
    let body: unknown = res.body;
    if (/json/.test(String(res.headers['content-type'])) && res.body) body = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers, body };
  };
  const client: Harness['client'] = (token) =>
    createControlClient({
      baseUrl: 'http://control-plane.test',
      fetch: injectFetch(plane.app),
      ...(token === undefined ? {} : { token: () => token }),
    });
  const expectStatus = (r: Reply, status: number, what: string) => {
    if (r.status !== status)
      throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };

  const h: Harness = {
    plane,
    backend,
    dataDir,
    databaseUrl,
    call,
    client,
    async createAccount(password) {
      const r = await client().createAccount({ body: password ? { password } : {} });
      return r.account_number;
    },
    async signIn(accountNumber, device = {}, password) {
      const reply = await call('POST', '/sessions', {
        body: {
          account_number: accountNumber,
          ...(password ? { password } : {}),
          device: {
            name: device.name ?? 'test device',
            kind: device.kind ?? 'laptop',
            wireguard_public_key: newPublicKey(),
            ferry_public_key: newPublicKey(),
          },
        },
      });
      return { token: reply.body?.token, device: reply.body?.device, reply };
    },
    async addNode(region, extra = {}) {
      const node = await client(ADMIN_TOKEN).adminCreateNode({
        body: {
          region,
          endpoint_host: '192.0.2.10',
          wireguard_port: 51820,
          ferry_port: 51821,
          capacity_mbps: 10_000,
          ...extra,
        },
      });
      return { id: node.id, token: node.token };
    },
    async addHealthyNode(region, load = 0.1, opts = {}) {
      const ferry = opts.ferry ?? true;
      const node = await h.addNode(region, ferry ? {} : { ferry_port: null });
      await client(node.token).nodeRegister({
        body: {
          wireguard_public_key: newPublicKey(),
          ...(ferry ? { ferry_public_key: newPublicKey() } : {}),
          ...(opts.probePort === undefined ? {} : { probe_port: opts.probePort }),
        },
      });
      expectStatus(await h.heartbeat(node.token, { load }), 200, 'heartbeat');
      return node;
    },
    heartbeat(nodeToken, body = {}) {
      return call('POST', '/node/heartbeat', {
        token: nodeToken,
        body: { load: 0.1, rx_bps: 0, tx_bps: 0, ...body },
      });
    },
    setPlan(accountNumber, plan) {
      return call('PUT', `/admin/accounts/${accountNumber}/plan`, {
        token: ADMIN_TOKEN,
        body: { plan },
      });
    },
    async close() {
      await plane.close();
      await pgDb?.drop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
