// Where the relay hands strangers: the cover site's address, looked up by the system's resolver
// when the relay starts (a few tries, then the relay does not start) and again when a
// connection to it fails (at most once per refresh interval, so a prober cannot make the relay
// flood the resolver). An address given as such is used as it is.
import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import type { Logger } from 'pino';
import { sleepUnlessAborted } from '../../contracts/index.js';
import type { CoverSite } from './tls-options.js';

/** Every address of a name, in the resolver's order. */
export type CoverLookup = (host: string) => Promise<string[]>;

const systemLookup: CoverLookup = async (host) =>
  (await dnsLookup(host, { all: true, order: 'verbatim' })).map((a) => a.address);

export interface CoverAddressOptions {
  lookup?: CoverLookup;
  /** Lookups at start before the relay gives up (default 5). */
  attempts?: number;
  /** The first wait between them, doubled each time (default 1 s). */
  retryMs?: number;
  /** At most one lookup per this long after a failed connection (default 30 s). */
  refreshMs?: number;
  log: Pick<Logger, 'warn' | 'info'>;
  signal?: AbortSignal;
  nowMs?: () => number;
}

export class CoverAddress {
  private lastLookupMs: number;
  private looking = false;

  private constructor(
    readonly site: CoverSite,
    private address: string,
    private readonly o: CoverAddressOptions,
  ) {
    this.lastLookupMs = this.now();
  }

  /** Looks the cover site up; throws when it cannot be found after the tries. */
  static async start(site: CoverSite, o: CoverAddressOptions): Promise<CoverAddress> {
    if (net.isIP(site.host) !== 0) return new CoverAddress(site, site.host, o);
    const lookup = o.lookup ?? systemLookup;
    const attempts = o.attempts ?? 5;
    let wait = o.retryMs ?? 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        const [first] = await lookup(site.host);
        if (first === undefined) throw new Error('no address');
        return new CoverAddress(site, first, o);
      } catch (e) {
        const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        if (attempt >= attempts || o.signal?.aborted)
          throw new Error(`the cover site ${site.host} does not resolve (${reason})`, { cause: e });
        o.log.warn({ cover: site.host, reason, retryMs: wait }, 'the cover site does not resolve');
        await sleepUnlessAborted(wait, o.signal ?? new AbortController().signal);
        wait *= 2;
      }
    }
  }

  /** Where to connect now. */
  get current(): { host: string; port: number } {
    return { host: this.address, port: this.site.port };
  }

  /**
   * A connection to the current address failed: the site may have moved. Looks the name up
   * again in the background, at most once per refresh interval; a failed lookup keeps the
   * address there is.
   */
  connectFailed(): void {
    if (net.isIP(this.site.host) !== 0 || this.looking) return;
    if (this.now() - this.lastLookupMs < (this.o.refreshMs ?? 30_000)) return;
    this.looking = true;
    this.lastLookupMs = this.now();
    (this.o.lookup ?? systemLookup)(this.site.host)
      .then(([first]) => {
        if (first !== undefined && first !== this.address) {
          this.address = first;
          this.o.log.info({ cover: this.site.host, address: first }, 'the cover site moved');
        }
      })
      .catch((e: unknown) => {
        this.o.log.warn(
          { cover: this.site.host, reason: (e as NodeJS.ErrnoException).code ?? String(e) },
          'the cover site does not resolve; keeping its last address',
        );
      })
      .finally(() => {
        this.looking = false;
      });
  }

  private now(): number {
    return (this.o.nowMs ?? Date.now)();
  }
}
