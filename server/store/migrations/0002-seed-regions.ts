// Migration 2: the regions a fresh service starts with.
import { sql, type Kysely } from 'kysely';

export const SEEDED_REGIONS = [
  { id: 'global', name: 'Global', area: 'global', country: null },
  { id: 'asia-east', name: 'Asia East (Tokyo)', area: 'asia', country: 'JP' },
  { id: 'asia-southeast', name: 'Asia Southeast (Singapore)', area: 'asia', country: 'SG' },
  { id: 'eu-west', name: 'Europe West (Amsterdam)', area: 'europe', country: 'NL' },
  { id: 'us-west', name: 'US West (Los Angeles)', area: 'north-america', country: 'US' },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const r of SEEDED_REGIONS) {
    await sql`insert into regions (id, name, area, country) values (${r.id}, ${r.name}, ${r.area}, ${r.country})`.execute(
      db,
    );
  }
}
