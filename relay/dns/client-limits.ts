// The resolver's bounds per device (a device is a tunnel source address): queries in flight, a
// token bucket of queries per second, and TCP connections, so that one device cannot take the
// resolver from the others. Held in memory only, never logged or counted per device (no-logs
// rule); a device's entry goes once it has nothing open and its bucket is full again.
import { TokenBuckets } from '../rate/token-buckets.js';

export interface ClientLimitOptions {
  /** Queries of one device waiting for an upstream at once. */
  maxInFlight: number;
  /** Queries one device may send per second on average, and in a burst. */
  queriesPerSecond: number;
  burst: number;
  /** TCP connections of one device at once. */
  maxTcpConnections: number;
  /** Devices tracked at once; a new one beyond them is refused (fails closed). */
  maxClients: number;
}

interface Open {
  inFlight: number;
  tcp: number;
}

/**
 * Contract: every `takeQuery` that returned true is followed by exactly one `queryDone`, every
 * `takeConnection` that returned true by exactly one `connectionClosed`, for the same address.
 */
export class ClientLimits {
  private readonly clients: TokenBuckets<Open>;

  constructor(
    private readonly o: ClientLimitOptions,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    for (const [name, value] of Object.entries(o))
      if (!(Number.isFinite(value) && value > 0))
        throw new RangeError(`${name} is a number above 0 (got ${value})`);
    this.clients = new TokenBuckets<Open>(
      { perSecond: o.queriesPerSecond, burst: o.burst, maxKeys: o.maxClients },
      () => ({ inFlight: 0, tcp: 0 }),
      (c) => c.inFlight > 0 || c.tcp > 0,
    );
  }

  /**
   * Takes one query of `client`: a token of its rate and a place in flight (held until
   * `queryDone`). False: drop the query.
   */
  takeQuery(client: string): boolean {
    const now = this.nowMs();
    const c = this.clients.entry(client, now);
    if (!c || !this.clients.takeFrom(c, now)) return false;
    // Over its rate or not, a query sent while the device has its fill in flight costs a token:
    // a device that keeps its queries waiting cannot save up a burst meanwhile.
    if (c.inFlight >= this.o.maxInFlight) return false;
    c.inFlight++;
    return true;
  }

  queryDone(client: string): void {
    const c = this.clients.held(client);
    if (c && c.inFlight > 0) c.inFlight--;
  }

  /** Takes one TCP connection of `client` (held until `connectionClosed`); false: close it. */
  takeConnection(client: string): boolean {
    const c = this.clients.entry(client, this.nowMs());
    if (!c || c.tcp >= this.o.maxTcpConnections) return false;
    c.tcp++;
    return true;
  }

  connectionClosed(client: string): void {
    const c = this.clients.held(client);
    if (c && c.tcp > 0) c.tcp--;
  }

  get trackedClients(): number {
    return this.clients.size;
  }

  /** Forgets devices with nothing open whose buckets are full again (call it every SWEEP_MS). */
  sweep(): void {
    this.clients.sweep(this.nowMs());
  }
}
