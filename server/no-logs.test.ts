// The no-logs rule: after real traffic from a known client address (socket and
// X-Forwarded-For), that address is nowhere in the database files, their dumps or the output.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  backends,
  freshPostgresDatabase,
  newPublicKey,
} from './testing/control-plane-harness.js';
import { startServerProcess } from './testing/server-process.js';

/** A loopback address of our own choosing: the socket's source address the server sees. */
const SOCKET_ADDRESS = '127.77.88.99';
/** Documentation range (RFC 5737): only ever a header value here, never contacted. */
const FORWARDED_ADDRESS = '198.51.100.77';
const FORBIDDEN = [SOCKET_ADDRESS, FORWARDED_ADDRESS];

function request(
  base: string,
  method: string,
  route: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const url = new URL(`/api/v1${route}`, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress: SOCKET_ADDRESS,
        headers: {
          'x-forwarded-for': FORWARDED_ADDRESS,
          'x-real-ip': FORWARDED_ADDRESS,
          forwarded: `for=${FORWARDED_ADDRESS}`,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function searchFor(haystack: Buffer, where: string): void {
  for (const needle of FORBIDDEN) {
    const raw = Buffer.from(needle.split('.').map(Number));
    expect(haystack.includes(needle), `${needle} found in ${where}`).toBe(false);
    expect(
      haystack.includes(Buffer.from(needle, 'utf16le')),
      `${needle} (UTF-16) found in ${where}`,
    ).toBe(false);
    expect(haystack.includes(raw), `${needle} (4 raw bytes) found in ${where}`).toBe(false);
  }
}

async function exerciseEverything(base: string): Promise<void> {
  const expectOk = (r: { status: number; body: any }, status: number) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    return r.body;
  };
  expectOk(await request(base, 'GET', '/health'), 200);
  // The exit-address check answers with the socket's address (forwarding headers are not trusted),
  // and keeps nothing of it: the searches below cover this request too.
  expect(expectOk(await request(base, 'GET', '/ip'), 200)).toEqual({ ip: SOCKET_ADDRESS });
  const { account_number } = expectOk(
    await request(base, 'POST', '/accounts', undefined, { password: 'a long password' }),
    201,
  );
  const node = expectOk(
    await request(base, 'POST', '/admin/nodes', ADMIN_TOKEN, {
      region: 'global',
      endpoint_host: '192.0.2.1',
      wireguard_port: 51820,
      capacity_mbps: 100,
    }),
    201,
  );
  expectOk(
    await request(base, 'POST', '/node/register', node.token, {
      wireguard_public_key: newPublicKey(),
    }),
    200,
  );
  expectOk(
    await request(base, 'POST', '/node/heartbeat', node.token, { load: 0.1, rx_bps: 1, tx_bps: 1 }),
    200,
  );
  const session = expectOk(
    await request(base, 'POST', '/sessions', undefined, {
      account_number,
      password: 'a long password',
      device: {
        name: 'laptop',
        kind: 'laptop',
        wireguard_public_key: newPublicKey(),
        ferry_public_key: newPublicKey(),
      },
    }),
    201,
  );
  expectOk(
    await request(base, 'POST', '/connect', session.token, {
      encryption: 'AES-256-GCM',
      protocol: 'WireGuard',
      region: 'auto',
      usage: 'remote-work',
    }),
    200,
  );
  // Stream mode: the node's own platform checks, an operator's request, GET /regions and
  // /nodes, and a streaming connect with a platform (and one refused) from the known address.
  expectOk(
    await request(base, 'POST', '/node/heartbeat', node.token, {
      load: 0.1,
      rx_bps: 1,
      tx_bps: 1,
      platforms: [
        {
          platform: 'netflix',
          reachable: true,
          region: 'CH',
          verdict: 'ok',
          checked_at: Math.floor(Date.now() / 1000),
        },
      ],
    }),
    200,
  );
  expectOk(
    await request(base, 'POST', `/admin/nodes/${node.id}/check-platforms`, ADMIN_TOKEN),
    202,
  );
  expect(
    expectOk(await request(base, 'GET', '/regions', session.token), 200).regions.find(
      (r: any) => r.id === 'global',
    ).platforms_verified,
  ).toEqual(['netflix']);
  expectOk(await request(base, 'GET', '/nodes', session.token), 200);
  const streaming = expectOk(
    await request(base, 'POST', '/connect', session.token, {
      usage: 'streaming',
      platform: 'Netflix',
      region: 'global',
    }),
    200,
  );
  expect(streaming.routing.reasons[0]).toMatch(/^Netflix verified on this node/);
  expect(
    (
      await request(base, 'POST', '/connect', session.token, {
        usage: 'streaming',
        platform: 'youtube',
        region: 'global',
      })
    ).body.code,
  ).toBe('platform-unverified');
  expectOk(
    await request(base, 'POST', '/node/heartbeat', node.token, {
      load: 0.1,
      rx_bps: 1,
      tx_bps: 1,
      fresh_handshakes: [{ device_id: session.device.id, latency_ms: 20 }],
      usage: [{ device_id: session.device.id, bytes: 4096 }],
    }),
    200,
  );
  expect(expectOk(await request(base, 'GET', '/status', session.token), 200).status).toBe(
    'connected',
  );
  expectOk(await request(base, 'GET', '/node/peers?after=0', node.token), 200);
  // Failures are not logged with addresses either.
  expect(
    (
      await request(base, 'POST', '/sessions', undefined, {
        account_number: '1111222233334444',
        device: {},
      })
    ).status,
  ).toBe(400);
  expect((await request(base, 'GET', '/status', 'ferry_d_wrongwrongwrongwrong')).status).toBe(401);
  expect((await request(base, 'GET', '/nothing-here')).status).toBe(404);
  expectOk(await request(base, 'POST', '/disconnect', session.token), 200);
}

describe.each(backends())('the no-logs rule on %s', (backend) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-nolog-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps no client address anywhere after real traffic', async () => {
    const pg =
      backend === 'postgres'
        ? await freshPostgresDatabase(process.env.FERRY_TEST_DATABASE_URL!)
        : undefined;
    try {
      const server = await startServerProcess([
        '--data-dir',
        dataDir,
        ...(pg ? ['--database-url', pg.url] : []),
      ]);
      try {
        await exerciseEverything(server.baseUrl);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const output = server.output();
      expect(output).toMatch(/control plane ready/);
      searchFor(Buffer.from(output), 'server output');

      if (backend === 'sqlite') {
        const files = readdirSync(dataDir);
        expect(files).toContain('ferry.db');
        for (const f of files) searchFor(readFileSync(path.join(dataDir, f)), f);
        const db = new BetterSqlite3(path.join(dataDir, 'ferry.db'), { readonly: true });
        const dump = db
          .prepare(
            "select group_concat(sql, ';') as s from sqlite_master where name not like 'kysely_%'",
          )
          .get() as { s: string };
        // No column can hold a time of day of a user's connection.
        expect(dump.s).not.toMatch(/_at\b|\btime|date|created|last_seen|ip_address/i);
        db.close();
      } else {
        const dump = execFileSync(
          `${process.env.FERRY_PG_BIN ?? '/usr/lib/postgresql/15/bin'}/pg_dump`,
          [pg!.url],
          { maxBuffer: 64 << 20 },
        );
        expect(dump.toString()).toMatch(/CREATE TABLE public.devices/);
        expect(dump.toString()).toMatch(/CREATE UNLOGGED TABLE public.live_sessions/);
        searchFor(dump, 'pg_dump');
      }
    } finally {
      await pg?.drop();
    }
  });
});
