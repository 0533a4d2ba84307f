// Migration 9: nodes that existed before the TLS transport have none until their relay
// registers one; their other columns stay as they were.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, SQLITE_FILE } from '../open.js';
import { migrationProvider } from './index.js';

describe('migration 0009-node-tls', () => {
  it('gives existing nodes no TLS port and no server name, and keeps the rest', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-mig-'));
    try {
      const file = new BetterSqlite3(path.join(dir, SQLITE_FILE));
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: file }) });
      const migrator = new Migrator({ db, provider: migrationProvider('sqlite') });
      expect((await migrator.migrateTo('0008-node-platforms')).error).toBeUndefined();
      file
        .prepare(
          "insert into nodes (id, region_id, endpoint_host, wireguard_port, ferry_port, capacity_mbps, token_hash, probe_port, probe_key) values ('node_a', 'global', '192.0.2.1', 51820, 51821, 1000, 'h1', 51884, 'k')",
        )
        .run();
      await db.destroy();

      const opened = await openDatabase({ dataDir: dir });
      const rows = await opened.db
        .selectFrom('nodes')
        .select(['id', 'ferry_port', 'probe_port', 'tls_port', 'tls_server_name'])
        .execute();
      await opened.close();
      expect(rows).toEqual([
        {
          id: 'node_a',
          ferry_port: 51821,
          probe_port: 51884,
          tls_port: null,
          tls_server_name: null,
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
