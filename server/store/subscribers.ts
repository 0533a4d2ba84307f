// The subscribers of one event bus in this process, whatever its events are.

/**
 * A set, not an emitter, so that any number of long polls and event streams may listen without
 * a limit to raise. A listener that throws does not keep the event from the others.
 */
export class Subscribers<E> {
  private readonly listeners = new Set<(event: E) => void>();

  add(listener: (event: E) => void): () => void {
    // Wrapped: the same function subscribed twice is two subscriptions.
    const entry = (event: E) => listener(event);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  deliver(event: E): void {
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
