// Live sessions in an UNLOGGED PostgreSQL table (several instances): never in the WAL, so
// never in backups or replicas, and deleted with the session.
import type pg from 'pg';
import type { Encryption, Protocol } from '../../contracts/index.js';
import { QueryBatcher } from './query-batcher.js';

/** A live session as the table holds it (the service's LiveSession, field for field). */
export interface LiveSessionRecord {
  deviceId: string;
  sessionId: string;
  nodeId: string;
  region: string;
  protocol: Protocol;
  cipher: Encryption;
  clientLatencyMs: number | null;
  clientLatencyUntilMs: number | null;
  nodeLatencyMs: number | null;
  upUntilMs: number | null;
}

/** A device a node's heartbeat reports with a fresh handshake. */
export interface HandshakeRecord {
  deviceId: string;
  latencyMs?: number | undefined;
}

export interface Row {
  device_id: string;
  session_id: string;
  node_id: string;
  region: string;
  protocol: Protocol;
  cipher: Encryption;
  client_latency_ms: number | null;
  client_latency_until_ms: number | null;
  node_latency_ms: number | null;
  up_until_ms: number | null;
}

export const LIVE_SESSION_COLUMNS = `device_id, session_id, node_id, region, protocol, cipher,
  client_latency_ms, client_latency_until_ms, node_latency_ms, up_until_ms`;

export function fromRow(r: Row): LiveSessionRecord {
  return {
    deviceId: r.device_id,
    sessionId: r.session_id,
    nodeId: r.node_id,
    region: r.region,
    protocol: r.protocol,
    cipher: r.cipher,
    clientLatencyMs: r.client_latency_ms,
    clientLatencyUntilMs: r.client_latency_until_ms,
    nodeLatencyMs: r.node_latency_ms,
    upUntilMs: r.up_until_ms,
  };
}

/**
 * Connect, status and disconnect run these on every call: named statements are parsed and
 * planned once per pooled connection instead of on every call.
 */
export class PostgresLiveSessions {
  /** Every connect writes its session: the writes that arrive meanwhile share one statement. */
  private readonly puts = new QueryBatcher<LiveSessionRecord, void>((sessions) =>
    this.putAll(sessions),
  );

  private constructor(private readonly pool: pg.Pool) {}

  /** The table is not a migration: it holds nothing worth migrating and must never be logged. */
  static async open(pool: pg.Pool): Promise<PostgresLiveSessions> {
    await pool.query(`create unlogged table if not exists live_sessions (
      device_id text primary key,
      session_id text not null,
      node_id text not null,
      region text not null,
      protocol text not null,
      cipher text not null,
      client_latency_ms double precision,
      client_latency_until_ms bigint,
      node_latency_ms double precision,
      up_until_ms bigint
    )`);
    // A table made by an older version: it gains the column (its rows, live sessions, keep).
    await pool.query(
      'alter table live_sessions add column if not exists client_latency_until_ms bigint',
    );
    await pool.query('create index if not exists live_sessions_node on live_sessions(node_id)');
    return new PostgresLiveSessions(pool);
  }

  async get(deviceId: string): Promise<LiveSessionRecord | undefined> {
    const { rows } = await this.pool.query<Row>({
      name: 'ferry-live-get',
      text: `select ${LIVE_SESSION_COLUMNS} from live_sessions where device_id = $1`,
      values: [deviceId],
    });
    return rows[0] && fromRow(rows[0]);
  }

  async getMany(deviceIds: readonly string[]): Promise<LiveSessionRecord[]> {
    if (deviceIds.length === 0) return [];
    const { rows } = await this.pool.query<Row>({
      name: 'ferry-live-get-many',
      text: `select ${LIVE_SESSION_COLUMNS} from live_sessions where device_id = any($1::text[])`,
      values: [deviceIds],
    });
    return rows.map(fromRow);
  }

  put(session: LiveSessionRecord): Promise<void> {
    return this.puts.call(session);
  }

  private async putAll(sessions: LiveSessionRecord[]): Promise<void[]> {
    // One statement may not change a row twice: per device the last write wins, as it would
    // one statement after another. Sorted, so that rows are always locked in the same order.
    const rows = [...new Map(sessions.map((s) => [s.deviceId, s])).values()].sort((a, b) =>
      a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0,
    );
    await retryOnDeadlock(() =>
      this.pool.query({
        name: 'ferry-live-put',
        text: `insert into live_sessions (${LIVE_SESSION_COLUMNS})
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::double precision[], $8::bigint[], $9::double precision[],
                            $10::bigint[])
       on conflict (device_id) do update set session_id=excluded.session_id, node_id=excluded.node_id,
         region=excluded.region, protocol=excluded.protocol, cipher=excluded.cipher,
         client_latency_ms=excluded.client_latency_ms,
         client_latency_until_ms=excluded.client_latency_until_ms,
         node_latency_ms=excluded.node_latency_ms,
         up_until_ms=excluded.up_until_ms`,
        values: [
          rows.map((s) => s.deviceId),
          rows.map((s) => s.sessionId),
          rows.map((s) => s.nodeId),
          rows.map((s) => s.region),
          rows.map((s) => s.protocol),
          rows.map((s) => s.cipher),
          rows.map((s) => s.clientLatencyMs),
          rows.map((s) => s.clientLatencyUntilMs),
          rows.map((s) => s.nodeLatencyMs),
          rows.map((s) => s.upUntilMs),
        ],
      }),
    );
    return sessions.map(() => undefined);
  }

  async delete(deviceId: string): Promise<boolean> {
    const r = await this.pool.query({
      name: 'ferry-live-delete',
      text: 'delete from live_sessions where device_id = $1',
      values: [deviceId],
    });
    return (r.rowCount ?? 0) > 0;
  }

  async reportClientLatency(
    deviceId: string,
    sessionId: string | undefined,
    latencyMs: number,
    untilMs: number,
  ): Promise<boolean> {
    const r = await this.pool.query({
      name: 'ferry-live-client-latency',
      text: `update live_sessions set client_latency_ms = $3, client_latency_until_ms = $4
              where device_id = $1 and ($2::text is null or session_id = $2::text)`,
      values: [deviceId, sessionId ?? null, latencyMs, untilMs],
    });
    return (r.rowCount ?? 0) > 0;
  }

  async applyHandshakes(
    nodeId: string,
    reports: readonly HandshakeRecord[],
    upUntilMs: number,
    nowMs: number,
  ): Promise<string[]> {
    const ids = reports.map((r) => r.deviceId);
    const latencies = reports.map((r) => r.latencyMs ?? null);
    // One statement: compare the old and new shown state (the live sessions port's shownState:
    // up, and a latency known) of every session on this node.
    const { rows } = await retryOnDeadlock(() =>
      this.pool.query<{ device_id: string }>(
        `with reported as (
         select * from unnest($2::text[], $3::double precision[]) as r(device_id, latency_ms)
       ), updated as (
         update live_sessions s
            set up_until_ms = case when r.device_id is null then null else $4::bigint end,
                node_latency_ms = r.latency_ms
           from live_sessions old
           left join reported r on r.device_id = old.device_id
          where s.device_id = old.device_id and old.node_id = $1
          returning s.device_id,
                    (old.up_until_ms is not null and old.up_until_ms > $5 and
                     (old.node_latency_ms is not null or old.client_latency_ms is not null))
                      as was_connected,
                    (s.up_until_ms is not null and s.up_until_ms > $5 and
                     (s.node_latency_ms is not null or s.client_latency_ms is not null))
                      as is_connected
       )
       select device_id from updated where was_connected <> is_connected`,
        [nodeId, ids, latencies, upUntilMs, nowMs],
      ),
    );
    return rows.map((r) => r.device_id);
  }

  async close(): Promise<void> {}
}

/**
 * A batch of session writes and a node's heartbeat both lock several rows, so each may wait
 * for the other; PostgreSQL then aborts one statement. Both are idempotent: run it again.
 */
async function retryOnDeadlock<T>(statement: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (e) {
      if (attempt >= attempts || (e as { code?: string }).code !== '40P01') throw e;
    }
  }
}
