// The event bus across instances sharing PostgreSQL: LISTEN/NOTIFY on one channel.
import type pg from 'pg';
import { QueryBatcher } from './query-batcher.js';
import { Subscribers } from './subscribers.js';

const CHANNEL = 'ferry_events';

/** Carries events of type E (JSON values: the domain's bus events in the service). */
export class PostgresEventBus<E> {
  /** Other instances (and this one) hear an event only when its notification arrives. */
  readonly instant = false;
  private readonly subscribers = new Subscribers<E>();
  /**
   * Under load each publish would take a pool connection for a round trip of its own; those
   * made while a NOTIFY is in flight go out together in the next. A publish still resolves
   * only once its NOTIFY has been sent.
   */
  private readonly notifies = new QueryBatcher<string, void>(async (payloads) => {
    // One notification per row, in array order. Subscribers do not rely on the order: feed
    // versions are compared, device and account events make them read afresh.
    await this.pool.query({
      name: 'ferry-bus-notify',
      text: 'select pg_notify($1, payload) from unnest($2::text[]) as t(payload)',
      values: [CHANNEL, payloads],
    });
    return payloads.map(() => undefined);
  });

  private constructor(
    private readonly pool: pg.Pool,
    private readonly listener: pg.PoolClient,
  ) {
    listener.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      let event: E;
      try {
        event = JSON.parse(msg.payload) as E;
      } catch {
        // Our own payloads are JSON; anything else on the channel is ignored.
        return;
      }
      this.subscribers.deliver(event);
    });
  }

  static async open<E>(pool: pg.Pool): Promise<PostgresEventBus<E>> {
    const client = await pool.connect();
    client.on('error', () => {});
    await client.query(`listen ${CHANNEL}`);
    return new PostgresEventBus<E>(pool, client);
  }

  publish(event: E): Promise<void> {
    return this.notifies.call(JSON.stringify(event));
  }

  subscribe(listener: (event: E) => void): () => void {
    return this.subscribers.add(listener);
  }

  async close(): Promise<void> {
    this.subscribers.clear();
    // Not back to the pool: a client still LISTENing would hand notifications to whoever took
    // it next. Destroyed, it ends its connection now.
    this.listener.release(true);
  }
}
