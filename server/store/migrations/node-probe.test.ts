// Migration 6: nodes that existed before probe keys get one each; no probe port until their
// relay registers one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, SQLITE_FILE } from '../open.js';
import { migrationProvider } from './index.js';

describe('migration 0006-node-probe', () => {
  it('gives every existing node its own probe key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-mig-'));
    try {
      const file = new BetterSqlite3(path.join(dir, SQLITE_FILE));
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: file }) });
      const migrator = new Migrator({ db, provider: migrationProvider('sqlite') });
      expect((await migrator.migrateTo('0005-safe-names')).error).toBeUndefined();
      const node = file.prepare(
        "insert into nodes (id, region_id, endpoint_host, wireguard_port, capacity_mbps, token_hash) values (?, 'global', '192.0.2.1', 51820, 1000, ?)",
      );
      node.run('node_a', 'h1');
      node.run('node_b', 'h2');
      await db.destroy();

      const opened = await openDatabase({ dataDir: dir });
      const rows = await opened.db
        .selectFrom('nodes')
        .select(['id', 'probe_port', 'probe_key'])
        .orderBy('id')
        .execute();
      await opened.close();
      expect(rows.map((r) => r.probe_port)).toEqual([null, null]);
      for (const r of rows) expect(Buffer.from(r.probe_key!, 'base64')).toHaveLength(32);
      expect(rows[0]!.probe_key).not.toBe(rows[1]!.probe_key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
