// Migration 5: names stored before control, line-separator and bidi characters were refused
// lose them (each run becomes a space), so that no list or config shows a name that breaks a
// line or displays as something else. Self-contained: later changes to the rules leave it be.
import { sql, type Kysely } from 'kysely';

// eslint-disable-next-line no-control-regex -- control characters are what it removes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]+/gu;

function clean(name: string, fallback: string): string {
  return name.replace(UNSAFE, ' ').trim() || fallback;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const devices = await sql<{ id: string; name: string }>`select id, name from devices`.execute(db);
  for (const { id, name } of devices.rows) {
    const safe = clean(name, 'device');
    if (safe !== name) await sql`update devices set name = ${safe} where id = ${id}`.execute(db);
  }
  const regions = await sql<{ id: string; name: string }>`select id, name from regions`.execute(db);
  for (const { id, name } of regions.rows) {
    const safe = clean(name, id);
    if (safe !== name) await sql`update regions set name = ${safe} where id = ${id}`.execute(db);
  }
}
