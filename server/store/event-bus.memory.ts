// The event bus within one process (SQLite mode: one instance).
import { Subscribers } from './subscribers.js';

/** Carries events of type E as they are (the domain's bus events in the service). */
export class MemoryEventBus<E> {
  /** Subscribers run inside `publish`, and there is no other instance. */
  readonly instant = true;
  private readonly subscribers = new Subscribers<E>();

  async publish(event: E): Promise<void> {
    this.subscribers.deliver(event);
  }

  subscribe(listener: (event: E) => void): () => void {
    return this.subscribers.add(listener);
  }

  async close(): Promise<void> {
    this.subscribers.clear();
  }
}
