// Rate limits for the probe responder: a token bucket per source, checked before anything else
// (the cheapest), and a budget of all for the answers, spent only on probes made with the node's
// key, so that junk from however many (spoofed) sources never spends it. A source is an IPv4
// address or an IPv6 /64 (one host may hold a whole /64). Held in memory only while its bucket
// refills, never logged (no-logs rule); a full table refuses a new source (fails closed).
import { TokenBucket, TokenBuckets } from '../rate/token-buckets.js';

export interface RateOptions {
  /** Datagrams per second a source may send on average, and in a burst. */
  perSourcePerSecond: number;
  perSourceBurst: number;
  /** Probes per second the responder answers in all. */
  totalPerSecond: number;
  totalBurst: number;
  maxSources: number;
}

export const DEFAULT_RATES: RateOptions = {
  perSourcePerSecond: 20,
  perSourceBurst: 40,
  totalPerSecond: 5_000,
  totalBurst: 10_000,
  maxSources: 65_536,
};

/**
 * The source a datagram's address counts as: an IPv4 address itself (also as Node shows it on a
 * dual-stack socket, `::ffff:a.b.c.d`), an IPv6 address its /64 (`2001:db8:1:2::/64`). Cheap:
 * it runs for every datagram, before anything else.
 */
export function sourceKey(address: string): string {
  if (!address.includes(':')) return address;
  const bare = address.split('%', 1)[0]!.toLowerCase();
  if (bare.startsWith('::ffff:') && bare.includes('.')) return bare.slice(7);
  const [head = '', tail] = bare.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  let groups = headGroups;
  if (headGroups.length < 4 && tail !== undefined) {
    const tailGroups = tail === '' ? [] : tail.split(':');
    // An embedded IPv4 address at the end is two groups.
    const tailCount = tailGroups.length + (tail.includes('.') ? 1 : 0);
    groups = [
      ...headGroups,
      ...Array<string>(Math.max(0, 8 - headGroups.length - tailCount)).fill('0'),
      ...tailGroups,
    ];
  }
  const prefix = groups
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : NaN));
  // Not an address as Node writes one: counted on its own, as it came.
  if (prefix.length < 4 || prefix.some(Number.isNaN)) return address;
  return `${prefix.map((n) => n.toString(16)).join(':')}::/64`;
}

export class SourceLimiter {
  private readonly sources: TokenBuckets;
  private readonly answers: TokenBucket;

  constructor(o: RateOptions = DEFAULT_RATES) {
    this.sources = new TokenBuckets({
      perSecond: o.perSourcePerSecond,
      burst: o.perSourceBurst,
      maxKeys: o.maxSources,
    });
    this.answers = new TokenBucket({ perSecond: o.totalPerSecond, burst: o.totalBurst });
  }

  /** Takes a token of the source `address` counts as; false: drop the datagram. */
  takeSource(address: string, nowMs: number): boolean {
    return this.sources.take(sourceKey(address), nowMs);
  }

  /** Takes a token of the budget of all, for a probe that proved it was made with the key. */
  takeAnswer(nowMs: number): boolean {
    return this.answers.take(nowMs);
  }

  /** Forgets the sources whose buckets are full again: their rate limit needs them no more. */
  sweep(nowMs: number): void {
    this.sources.sweep(nowMs);
  }

  get trackedSources(): number {
    return this.sources.size;
  }
}
