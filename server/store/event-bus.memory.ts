// The event bus within one process (SQLite mode: one instance).
import { Subscribers, type BusEvent, type EventBus } from '../domain/event-bus.js';

export class MemoryEventBus implements EventBus {
  /** Subscribers run inside `publish`, and there is no other instance. */
  readonly instant = true;
  private readonly subscribers = new Subscribers();

  async publish(event: BusEvent): Promise<void> {
    this.subscribers.deliver(event);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.subscribers.add(listener);
  }

  async close(): Promise<void> {
    this.subscribers.clear();
  }
}
