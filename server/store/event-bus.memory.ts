// The event bus within one process (SQLite mode: one instance).
import { EventEmitter } from 'node:events';
import type { BusEvent, EventBus } from '../domain/event-bus.js';

export class MemoryEventBus implements EventBus {
  /** Subscribers run inside `publish`, and there is no other instance. */
  readonly instant = true;
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(event: BusEvent): Promise<void> {
    this.emitter.emit('event', event);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
