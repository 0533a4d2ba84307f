// Hands Kysely one prepared better-sqlite3 statement per SQL text instead of preparing it anew
// on every query (Kysely's SQLite driver prepares each time; preparing was a fifth of connect).
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Distinct SQL texts kept. Kysely's texts are few (values are parameters); only `in (...)`
 * lists of varying length add more, and those are dropped oldest first.
 */
export const DEFAULT_MAX_STATEMENTS = 500;

export function cachingSqliteDatabase(
  file: BetterSqlite3.Database,
  maxStatements = DEFAULT_MAX_STATEMENTS,
): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      // A statement still iterating (a streamed query) cannot run again until it is done.
      if (cached && !cached.busy) return cached;
      const stmt = file.prepare(sql);
      if (!cached) {
        if (statements.size >= maxStatements) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
        statements.set(sql, stmt);
      }
      return stmt;
    },
    close(): void {
      statements.clear();
      file.close();
    },
  };
}
