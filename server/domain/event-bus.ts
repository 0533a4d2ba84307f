// The event bus between control-plane instances: feed versions, per-device and per-account changes.
export type BusEvent =
  | { kind: 'feed'; version: number }
  | { kind: 'device'; deviceId: string; change: 'status' | 'keys' | 'revoked' }
  | { kind: 'account'; accountId: number; change: 'plan' };

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
