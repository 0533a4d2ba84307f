// Opens the database (embedded SQLite by default, PostgreSQL for several instances) and
// applies pending migrations.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import type { Db, Dialect, Tables } from './schema.js';
import { cachingSqliteDatabase } from './sqlite-statement-cache.js';

export interface OpenDatabase {
  db: Db;
  dialect: Dialect;
  /** PostgreSQL only: the pool, for LISTEN/NOTIFY and unlogged live state. */
  pool?: pg.Pool;
  close(): Promise<void>;
}

export const SQLITE_FILE = 'ferry.db';

export async function openDatabase(opts: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): Promise<OpenDatabase> {
  const opened = opts.databaseUrl ? openPostgres(opts.databaseUrl) : openSqlite(opts.dataDir);
  const migrator = new Migrator({ db: opened.db, provider: migrationProvider(opened.dialect) });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await opened.close();
    // The service does not start: its start-up failure reports this message and the cause.
    throw new Error('the database could not be migrated', { cause: error });
  }
  return opened;
}

function openSqlite(dataDir: string): OpenDatabase {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = new BetterSqlite3(path.join(dataDir, SQLITE_FILE));
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: cachingSqliteDatabase(file) }),
  });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

function openPostgres(url: string): OpenDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: 16,
    // int8 (bigserial ids, byte counters, ms timestamps) fits in a double for our ranges.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', pool, close: () => db.destroy() };
}
