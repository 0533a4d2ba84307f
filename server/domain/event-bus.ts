// The event bus between control-plane instances: feed versions, per-device and per-account changes.
export type BusEvent =
  | { kind: 'feed'; version: number }
  | { kind: 'device'; deviceId: string; change: 'status' | 'keys' | 'revoked' }
  | { kind: 'account'; accountId: number; change: 'plan' };

/**
 * The subscribers of one bus in this process: a set, not an emitter, so that any number of
 * long polls and event streams may listen without a limit to raise. A listener that throws
 * does not keep the event from the others.
 */
export class Subscribers {
  private readonly listeners = new Set<(event: BusEvent) => void>();

  add(listener: (event: BusEvent) => void): () => void {
    // Wrapped: the same function subscribed twice is two subscriptions.
    const entry = (event: BusEvent) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  deliver(event: BusEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A subscriber's own failure is its own; the others still hear the event.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Contract: `publish` reaches every subscriber of every instance sharing the store. */
export interface EventBus {
  /**
   * True when `publish` has reached every subscriber of every instance by the time it
   * resolves (one process). Only then may a cache rely on events to be dropped "at once";
   * across processes an event arrives a little later, and a request may come first.
   */
  readonly instant: boolean;
  publish(event: BusEvent): Promise<void>;
  subscribe(listener: (event: BusEvent) => void): () => void;
  close(): Promise<void>;
}
