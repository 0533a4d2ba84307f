// Migration 5: names stored before unsafe characters were refused lose them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, SQLITE_FILE } from '../open.js';
import { migrationProvider } from './index.js';

describe('migration 0005-safe-names', () => {
  it('cleans device and region names written before the rule', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-mig-'));
    try {
      const file = new BetterSqlite3(path.join(dir, SQLITE_FILE));
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: file }) });
      const migrator = new Migrator({ db, provider: migrationProvider('sqlite') });
      expect((await migrator.migrateTo('0004-node-degraded')).error).toBeUndefined();
      file
        .prepare("insert into accounts (number, plan) values ('1234567890123456', 'basic')")
        .run();
      const device = file.prepare(
        "insert into devices (id, account_id, name, kind, wireguard_public_key, ferry_public_key, tunnel_ipv4, tunnel_ipv6, token_hash) values (?, 1, ?, 'phone', ?, ?, ?, ?, ?)",
      );
      device.run('dev_a', 'x\u2028DNS = 9.9.9.9\u2028#', 'k1', 'k2', 'a4', 'a6', 'h1');
      device.run('dev_b', '\u202e\u0000', 'k3', 'k4', 'b4', 'b6', 'h2');
      device.run('dev_c', 'Zoë’s 📱', 'k5', 'k6', 'c4', 'c6', 'h3');
      file.prepare("update regions set name = 'Tokyo\u001b[0m' where id = 'asia-east'").run();
      await db.destroy();

      const opened = await openDatabase({ dataDir: dir });
      const names = await opened.db
        .selectFrom('devices')
        .select(['id', 'name'])
        .orderBy('id')
        .execute();
      const region = await opened.db
        .selectFrom('regions')
        .select('name')
        .where('id', '=', 'asia-east')
        .executeTakeFirstOrThrow();
      await opened.close();
      expect(names).toEqual([
        { id: 'dev_a', name: 'x DNS = 9.9.9.9 #' },
        { id: 'dev_b', name: 'device' },
        { id: 'dev_c', name: 'Zoë’s 📱' },
      ]);
      expect(region.name).toBe('Tokyo [0m');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
