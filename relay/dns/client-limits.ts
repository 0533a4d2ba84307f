// The resolver's bounds per device (a device is a tunnel source address): queries in flight, a
// token bucket of queries per second, and TCP connections, so that one device cannot take the
// resolver from the others. Held in memory only, never logged or counted per device (no-logs
// rule); a device's entry goes once it has nothing open and its bucket is full again.

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

interface ClientState {
  inFlight: number;
  tcp: number;
  tokens: number;
  atMs: number;
}

/**
 * Contract: every `takeQuery` that returned true is followed by exactly one `queryDone`, every
 * `takeConnection` that returned true by exactly one `connectionClosed`, for the same address.
 */
export class ClientLimits {
  private readonly clients = new Map<string, ClientState>();

  constructor(
    private readonly o: ClientLimitOptions,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    for (const [name, value] of Object.entries(o))
      if (!(Number.isFinite(value) && value > 0))
        throw new RangeError(`${name} is a number above 0 (got ${value})`);
  }

  /**
   * Takes one query of `client`: a token of its rate and a place in flight (held until
   * `queryDone`). False: drop the query.
   */
  takeQuery(client: string): boolean {
    const c = this.stateOf(client);
    if (!c) return false;
    const now = this.nowMs();
    c.tokens = Math.min(
      this.o.burst,
      c.tokens + (Math.max(0, now - c.atMs) / 1000) * this.o.queriesPerSecond,
    );
    c.atMs = now;
    if (c.tokens < 1) return false;
    // Over its rate or not, a query sent while the device has its fill in flight costs a token:
    // a device that keeps its queries waiting cannot save up a burst meanwhile.
    c.tokens -= 1;
    if (c.inFlight >= this.o.maxInFlight) return false;
    c.inFlight++;
    return true;
  }

  queryDone(client: string): void {
    const c = this.clients.get(client);
    if (c && c.inFlight > 0) c.inFlight--;
  }

  /** Takes one TCP connection of `client` (held until `connectionClosed`); false: close it. */
  takeConnection(client: string): boolean {
    const c = this.stateOf(client);
    if (!c || c.tcp >= this.o.maxTcpConnections) return false;
    c.tcp++;
    return true;
  }

  connectionClosed(client: string): void {
    const c = this.clients.get(client);
    if (c && c.tcp > 0) c.tcp--;
  }

  get trackedClients(): number {
    return this.clients.size;
  }

  /** Forgets devices with nothing open whose buckets are full again. */
  sweep(): void {
    const now = this.nowMs();
    for (const [client, c] of this.clients) {
      if (c.inFlight > 0 || c.tcp > 0) continue;
      const tokens = c.tokens + ((now - c.atMs) / 1000) * this.o.queriesPerSecond;
      if (tokens >= this.o.burst) this.clients.delete(client);
    }
  }

  private stateOf(client: string): ClientState | undefined {
    let c = this.clients.get(client);
    if (c) return c;
    if (this.clients.size >= this.o.maxClients) {
      this.sweep();
      if (this.clients.size >= this.o.maxClients) return undefined;
    }
    c = { inFlight: 0, tcp: 0, tokens: this.o.burst, atMs: this.nowMs() };
    this.clients.set(client, c);
    return c;
  }
}
