// An event bus in one process (test code) that also keeps what was published, in order, so that
// a domain test can say which events a call raised.
import type { BusEvent, EventBus } from '../event-bus.js';

export class RecordingEventBus implements EventBus {
  /** Subscribers hear an event before `publish` resolves, as on one instance. */
  readonly instant = true;
  readonly published: BusEvent[] = [];
  private readonly listeners = new Set<(event: BusEvent) => void>();

  async publish(event: BusEvent): Promise<void> {
    this.published.push(event);
    for (const listener of [...this.listeners]) listener(event);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    const entry = (event: BusEvent) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
