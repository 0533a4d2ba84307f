// The event bus between control-plane instances: feed versions and per-device changes.
export type BusEvent =
  | { kind: 'feed'; version: number }
  | { kind: 'device'; deviceId: string; change: 'status' | 'keys' | 'revoked' };

/** Contract: `publish` reaches every subscriber of every instance sharing the store. */
export interface EventBus {
  publish(event: BusEvent): Promise<void>;
  subscribe(listener: (event: BusEvent) => void): () => void;
  close(): Promise<void>;
}
