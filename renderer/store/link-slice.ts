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

/**
 * How often the configuration is read again while the link is up: the engine sends no event
 * when another face changes it (`netcli config set language zh-CN` switches this window too).
 */
export const CONFIG_FOLLOW_MS = 2_000;

export interface LinkDeps extends SliceDeps {
  feed: StatusFeed;
}

export const createLinkSlice =
  ({ transport, calls, feed }: LinkDeps): EngineSlice<LinkReplica & { actions: LinkActions }> =>
  (set, get) => ({
    ...EMPTY_LINK,
    actions: {
      start() {
        // Another face's change of a setting, followed; never over a change of ours in flight.
        const ours = () => get().busy.config === true || get().configPending !== null;
        const follow = setInterval(() => {
          if (get().link !== 'up' || ours()) return;
          transport
            .call('getConfig', {})
            .then((config) => {
              if (ours() || JSON.stringify(config) === JSON.stringify(get().config)) return;
              set({ config });
            })
            .catch(() => undefined);
        }, CONFIG_FOLLOW_MS);
        const stop = transport.subscribe({
          event(e) {
            feed.event(e);
          },
          connection(state) {
            set({ link: state });
            // A new stream may follow a restarted engine: everything is read again.
            if (state === 'up') void get().actions.refresh();
          },
        });
        return () => {
          clearInterval(follow);
          stop();
        };
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
