// Follows the control plane's peer feed by long polling, applying each answer as it comes;
// when the control plane is away it keeps the peers it has and retries with backoff, and an
// answer that could not be wholly applied is asked for again.
import type { Logger } from 'pino';
import {
  sleepUnlessAborted,
  type ControlClient,
  type PeersResponse,
} from '../../contracts/index.js';

export interface FeedSink {
  /**
   * Applies an answer. `retry`: part of it could not be applied (the sink has logged why); the
   * follower asks again from the same version, whose answer then holds every later change too.
   */
  apply(feed: PeersResponse): Promise<{ upserts: number; removes: number; retry?: boolean }>;
}

const LONG_POLL_SECONDS = 25;
/** How long an answer may take beyond the time the control plane holds a long poll. */
const ANSWER_MARGIN_MS = 15_000;
const MAX_BACKOFF_MS = 10_000;

export class FeedFollower {
  /** The feed version applied; 0 until the first snapshot. */
  version = 0;
  private readonly firstSync: Promise<void>;
  private synced_ = false;
  private resolveFirst!: () => void;

  constructor(
    private readonly client: Pick<ControlClient, 'nodePeers'>,
    private readonly sink: FeedSink,
    private readonly log: Logger,
  ) {
    this.firstSync = new Promise((r) => (this.resolveFirst = r));
  }

  /** Resolves once the first snapshot has been applied. */
  synced(): Promise<void> {
    return this.firstSync;
  }

  async run(signal: AbortSignal): Promise<void> {
    let backoff = 500;
    while (!signal.aborted) {
      try {
        // The first request asks for a snapshot at once; after it every request long-polls,
        // also at version 0 (an empty feed), which the control plane answers on the first change.
        const wait = this.synced_ ? LONG_POLL_SECONDS : 0;
        const feed = await this.client.nodePeers({
          query: { after: this.version, wait },
          timeoutMs: wait * 1000 + ANSWER_MARGIN_MS,
          signal,
        });
        if (signal.aborted) return;
        const { retry, ...applied } = await this.sink.apply(feed);
        if (feed.snapshot || applied.upserts || applied.removes) {
          this.log.info(
            { version: feed.version, snapshot: feed.snapshot, complete: !retry, ...applied },
            'peer feed applied',
          );
        }
        if (retry) {
          await sleepUnlessAborted(backoff, signal);
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          continue;
        }
        this.version = feed.version;
        if (feed.snapshot) {
          this.synced_ = true;
          this.resolveFirst();
        }
        backoff = 500;
      } catch (e) {
        if (signal.aborted) return;
        this.log.warn(
          { err: (e as Error).message, retryMs: backoff },
          'peer feed unavailable; keeping current peers',
        );
        await sleepUnlessAborted(backoff, signal);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }
}
