// Live sessions in an UNLOGGED PostgreSQL table (several instances): never in the WAL, so
// never in backups or replicas, and deleted with the session.
import type pg from 'pg';
import type { Encryption, Protocol } from '../../contracts/index.js';
import type { HandshakeReport, LiveSession, LiveSessions } from '../domain/live-sessions.js';

interface Row {
  device_id: string;
  session_id: string;
  node_id: string;
  region: string;
  protocol: Protocol;
  cipher: Encryption;
  client_latency_ms: number | null;
  node_latency_ms: number | null;
  up_until_ms: number | null;
}

function fromRow(r: Row): LiveSession {
  return {
    deviceId: r.device_id,
    sessionId: r.session_id,
    nodeId: r.node_id,
    region: r.region,
    protocol: r.protocol,
    cipher: r.cipher,
    clientLatencyMs: r.client_latency_ms,
    nodeLatencyMs: r.node_latency_ms,
    upUntilMs: r.up_until_ms,
  };
}

export class PostgresLiveSessions implements LiveSessions {
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
      node_latency_ms double precision,
      up_until_ms bigint
    )`);
    await pool.query('create index if not exists live_sessions_node on live_sessions(node_id)');
    return new PostgresLiveSessions(pool);
  }

  async get(deviceId: string): Promise<LiveSession | undefined> {
    const { rows } = await this.pool.query<Row>('select * from live_sessions where device_id = $1', [deviceId]);
    return rows[0] && fromRow(rows[0]);
  }

  async put(s: LiveSession): Promise<void> {
    await this.pool.query(
      `insert into live_sessions values ($1,$2,$3,$4,$5,$6,$7,$8,$9)
       on conflict (device_id) do update set session_id=excluded.session_id, node_id=excluded.node_id,
         region=excluded.region, protocol=excluded.protocol, cipher=excluded.cipher,
         client_latency_ms=excluded.client_latency_ms, node_latency_ms=excluded.node_latency_ms,
         up_until_ms=excluded.up_until_ms`,
      [s.deviceId, s.sessionId, s.nodeId, s.region, s.protocol, s.cipher, s.clientLatencyMs, s.nodeLatencyMs, s.upUntilMs],
    );
  }

  async delete(deviceId: string): Promise<boolean> {
    const r = await this.pool.query('delete from live_sessions where device_id = $1', [deviceId]);
    return (r.rowCount ?? 0) > 0;
  }

  async applyHandshakes(
    nodeId: string,
    reports: readonly HandshakeReport[],
    upUntilMs: number,
    nowMs: number,
  ): Promise<string[]> {
    const ids = reports.map((r) => r.deviceId);
    const latencies = reports.map((r) => r.latencyMs ?? null);
    // One statement: compare the old and new up state of every session on this node.
    const { rows } = await this.pool.query<{ device_id: string }>(
      `with reported as (
         select * from unnest($2::text[], $3::double precision[]) as r(device_id, latency_ms)
       ), updated as (
         update live_sessions s
            set up_until_ms = case when r.device_id is null then null else $4::bigint end,
                node_latency_ms = coalesce(r.latency_ms, s.node_latency_ms)
           from live_sessions old
           left join reported r on r.device_id = old.device_id
          where s.device_id = old.device_id and old.node_id = $1
          returning s.device_id, (old.up_until_ms is not null and old.up_until_ms > $5) as was_up,
                    (s.up_until_ms is not null and s.up_until_ms > $5) as is_up
       )
       select device_id from updated where was_up <> is_up`,
      [nodeId, ids, latencies, upUntilMs, nowMs],
    );
    return rows.map((r) => r.device_id);
  }

  async close(): Promise<void> {}
}
