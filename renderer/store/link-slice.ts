// The link to the engine: its event stream, followed into the replica (through the status
// feed), and everything read again whenever the stream (re)opens: it may follow a restarted
// engine.
import { loadConfig } from './settings-slice.js';
import type { EngineSlice, SliceDeps } from './slice.js';
import type { StatusFeed } from './status-feed.js';

export type Link = 'unknown' | 'up' | 'down' | 'signed-out';

export interface LinkReplica {
  /**
   * The event stream from the engine: unknown until it first opens or fails; `signed-out` when
   * the web graphical mode's session of this browser is over (nothing is asked any more).
   */
  link: Link;
}

export interface LinkActions {
  /** Follows the engine's events until the returned function is called. */
  start(): () => void;
  refresh(): Promise<void>;
}

export const EMPTY_LINK: LinkReplica = { link: 'unknown' };

export interface LinkDeps extends SliceDeps {
  feed: StatusFeed;
}

export const createLinkSlice =
  ({ transport, calls, feed }: LinkDeps): EngineSlice<LinkReplica & { actions: LinkActions }> =>
  (set, get) => ({
    ...EMPTY_LINK,
    actions: {
      start() {
        return transport.subscribe({
          event(e) {
            feed.event(e);
          },
          connection(state) {
            set({ link: state });
            // A new stream may follow a restarted engine: everything is read again.
            if (state === 'up') void get().actions.refresh();
          },
        });
      },

      async refresh() {
        await calls.exclusive('refresh', async () => {
          const keep = feed.since();
          try {
            const [status] = await Promise.all([
              transport.call('status', {}),
              loadConfig(transport, set),
            ]);
            keep(status);
            await feed.loadSession(status);
          } catch (e) {
            calls.fail(e);
          }
        });
      },
    },
  });
