// A client's upstream resolvers as one: each query goes to them in turn, starting with the one
// that answered last, within one time budget shared among them.
import {
  exchange,
  PLAIN_SOCKETS,
  type ExchangeResult,
  type ExchangeSockets,
  type Upstream,
} from './exchange.js';
import type { DnsQuery, DnsTransport } from './wire.js';

const FAILED: ExchangeResult = { kind: 'failed' };

/** Rcodes after which another upstream may know better. */
function refused(rcode: string): boolean {
  return rcode === 'SERVFAIL' || rcode === 'REFUSED';
}

export class UpstreamSet {
  private readonly upstreams: readonly Upstream[];
  /** The upstream that answered last: a dead first upstream costs one timeout, not one each. */
  private preferred = 0;

  constructor(
    upstreams: readonly Upstream[],
    private readonly sockets: ExchangeSockets = PLAIN_SOCKETS,
  ) {
    if (upstreams.length === 0) throw new Error('a DNS forwarder needs an upstream resolver');
    this.upstreams = [...upstreams];
  }

  get size(): number {
    return this.upstreams.length;
  }

  /**
   * Asks upstreams in turn starting with the preferred one (the last that answered), each with
   * timeoutMs / count of the budget; SERVFAIL/REFUSED moves on while another is left; the last
   * one's word is returned. Resolves failed when none answered or signal aborted.
   */
  async ask(
    query: DnsQuery,
    transport: DnsTransport,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ExchangeResult> {
    const count = this.upstreams.length;
    // The budget is shared, so that every upstream gets its turn before the client gives up.
    const share = timeoutMs / count;
    // Taken once: each upstream is asked at most once per query, whatever others meanwhile learn.
    const first = this.preferred;
    for (let tried = 0; tried < count; tried++) {
      if (signal.aborted) return FAILED;
      const index = (first + tried) % count;
      const r = await this.askOne(this.upstreams[index]!, query, transport, share, signal);
      if (r.kind === 'failed') continue;
      // The last one's word goes to the client, refusal or not.
      if (refused(r.rcode) && tried + 1 < count) continue;
      if (!refused(r.rcode)) this.preferred = index;
      return r;
    }
    return FAILED;
  }

  private async askOne(
    up: Upstream,
    query: DnsQuery,
    transport: DnsTransport,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ExchangeResult> {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(stop, timeoutMs);
    try {
      return await exchange(up, query, transport, attempt.signal, this.sockets);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }
}
