// The PostgreSQL event bus: publishes made together go out in shared NOTIFYs, and every event
// still reaches every instance, each publish resolving once its event is sent.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, freshPostgresDatabase } from '../testing/control-plane-harness.js';
import { PostgresEventBus } from './event-bus.postgres.js';

/** Events shaped as the control plane's: the bus carries whatever JSON it is given. */
type TestEvent =
  { kind: 'feed'; version: number } | { kind: 'device'; deviceId: string; change: 'status' };

describe.skipIf(!backends().includes('postgres'))('PostgresEventBus', () => {
  let database: { url: string; drop(): Promise<void> };
  const pools: pg.Pool[] = [];
  const buses: PostgresEventBus<TestEvent>[] = [];
  beforeAll(async () => {
    database = await freshPostgresDatabase(process.env.FERRY_TEST_DATABASE_URL!);
    for (let i = 0; i < 2; i++) {
      const pool = new pg.Pool({ connectionString: database.url, max: 4 });
      // As server/store/open.ts: an idle client's error (the database dropped at the end) is
      // the pool's to handle, not an uncaught exception.
      pool.on('error', () => {});
      pools.push(pool);
      buses.push(await PostgresEventBus.open<TestEvent>(pool));
    }
  });
  afterAll(async () => {
    for (const b of buses) await b.close();
    for (const p of pools) await p.end();
    await database?.drop();
  });

  it('delivers every one of many concurrent publishes to both instances', async () => {
    const [a, b] = buses as [PostgresEventBus<TestEvent>, PostgresEventBus<TestEvent>];
    const seen = [new Set<number>(), new Set<number>()];
    const all = new Promise<void>((done) => {
      [a, b].forEach((bus, i) =>
        bus.subscribe((e: TestEvent) => {
          if (e.kind !== 'feed') return;
          seen[i]!.add(e.version);
          if (seen[0]!.size === 300 && seen[1]!.size === 300) done();
        }),
      );
    });
    const versions = Array.from({ length: 300 }, (_, i) => i + 1);
    await Promise.all(versions.map((version) => a.publish({ kind: 'feed', version })));
    await all;
    expect([...seen[1]!].sort((x, y) => x - y)).toEqual(versions);
  });

  it('fails the publishes of a batch whose NOTIFY fails, and carries on after', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => {});
    const bus = await PostgresEventBus.open<TestEvent>(pool);
    try {
      // An event too large for a NOTIFY payload (8000 bytes) makes its statement fail.
      const huge = { kind: 'device', deviceId: 'x'.repeat(9000), change: 'status' } as const;
      await expect(bus.publish(huge)).rejects.toThrow();
      const heard = new Promise<void>((done) =>
        buses[0]!.subscribe((e) => e.kind === 'feed' && e.version === 424242 && done()),
      );
      await bus.publish({ kind: 'feed', version: 424242 });
      await heard;
    } finally {
      await bus.close();
      await pool.end();
    }
  });
});
