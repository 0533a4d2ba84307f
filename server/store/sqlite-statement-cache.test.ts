// The SQLite statement cache: one statement per SQL text, still correct under Kysely, bounded.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cachingSqliteDatabase } from './sqlite-statement-cache.js';

describe('cachingSqliteDatabase', () => {
  let file: BetterSqlite3.Database | undefined;
  afterEach(() => {
    if (file?.open) file.close();
  });

  it('prepares each SQL text once', () => {
    file = new BetterSqlite3(':memory:');
    const db = cachingSqliteDatabase(file);
    const a = db.prepare('select 1 as x');
    expect(db.prepare('select 1 as x')).toBe(a);
    expect(db.prepare('select 2 as x')).not.toBe(a);
  });

  it('gives a fresh statement while the cached one is still iterating', () => {
    file = new BetterSqlite3(':memory:');
    const db = cachingSqliteDatabase(file);
    const sql = 'select value from json_each(?)';
    const first = db.prepare(sql);
    const rows = first.iterate(['[1,2,3]']);
    rows.next();
    const second = db.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all(['[4]'])).toEqual([{ value: 4 }]);
    expect([...rows]).toEqual([{ value: 2 }, { value: 3 }]);
    expect(db.prepare(sql)).toBe(first);
  });

  it('keeps at most the given number of statements, dropping the oldest', () => {
    file = new BetterSqlite3(':memory:');
    const db = cachingSqliteDatabase(file, 2);
    const one = db.prepare('select 1');
    const two = db.prepare('select 2');
    db.prepare('select 3');
    expect(db.prepare('select 2')).toBe(two);
    expect(db.prepare('select 1')).not.toBe(one);
  });

  it('serves Kysely reads and writes with the values of each call', async () => {
    file = new BetterSqlite3(':memory:');
    const kysely = new Kysely<{ t: { id: number; name: string } }>({
      dialect: new SqliteDialect({ database: cachingSqliteDatabase(file) }),
    });
    await kysely.schema
      .createTable('t')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text')
      .execute();
    for (const [id, name] of [
      [1, 'a'],
      [2, 'b'],
    ] as const) {
      const r = await kysely.insertInto('t').values({ id, name }).executeTakeFirst();
      expect(Number(r.insertId)).toBe(id);
    }
    const byId = (id: number) =>
      kysely.selectFrom('t').select('name').where('id', '=', id).executeTakeFirst();
    expect(await byId(1)).toEqual({ name: 'a' });
    expect(await byId(2)).toEqual({ name: 'b' });
    const updated = await kysely
      .updateTable('t')
      .set({ name: 'c' })
      .where('id', '=', 2)
      .executeTakeFirst();
    expect(Number(updated.numUpdatedRows)).toBe(1);
    expect(await byId(2)).toEqual({ name: 'c' });
    await kysely.destroy();
    expect(file.open).toBe(false);
  });
});
