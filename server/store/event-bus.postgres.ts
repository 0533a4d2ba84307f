// The event bus across instances sharing PostgreSQL: LISTEN/NOTIFY on one channel.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { BusEvent, EventBus } from '../domain/event-bus.js';

const CHANNEL = 'ferry_events';

export class PostgresEventBus implements EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  private constructor(
    private readonly pool: pg.Pool,
    private readonly listener: pg.PoolClient,
  ) {
    listener.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        this.emitter.emit('event', JSON.parse(msg.payload) as BusEvent);
      } catch {
        // Our own payloads are JSON; anything else on the channel is ignored.
      }
    });
  }

  static async open(pool: pg.Pool): Promise<PostgresEventBus> {
    const client = await pool.connect();
    client.on('error', () => {});
    await client.query(`listen ${CHANNEL}`);
    return new PostgresEventBus(pool, client);
  }

  async publish(event: BusEvent): Promise<void> {
    await this.pool.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify(event)]);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    this.listener.release();
  }
}
