// The browsers signed in to the web graphical mode, for Settings to list and end. Only that mode
// has them (the desktop app's window signs nothing in); ending this browser's own session signs
// the page out.
import type { BrowserSession } from '../../contracts/browser-sessions.js';
import type { EngineSlice, SliceDeps } from './slice.js';

export interface BrowserSessionsReplica {
  /** Whether this page has browser sessions at all (the web graphical mode). */
  browserSessionsOffered: boolean;
  /** What the engine host last listed; null until read. */
  browserSessions: BrowserSession[] | null;
}

export interface BrowserSessionsActions {
  loadBrowserSessions(): Promise<void>;
  /** Signs that browser out; this one's own signs the page out. */
  endBrowserSession(id: string): Promise<void>;
}

export const EMPTY_BROWSER_SESSIONS: BrowserSessionsReplica = {
  browserSessionsOffered: false,
  browserSessions: null,
};

export const createBrowserSessionsSlice =
  ({
    transport,
    calls,
  }: SliceDeps): EngineSlice<BrowserSessionsReplica & { actions: BrowserSessionsActions }> =>
  (set, get) => {
    const access = transport.browserSessions;
    const load = async () => {
      if (access) set({ browserSessions: await access.list() });
    };
    return {
      ...EMPTY_BROWSER_SESSIONS,
      browserSessionsOffered: access !== undefined,
      actions: {
        async loadBrowserSessions() {
          try {
            await load();
          } catch (e) {
            calls.fail(e);
          }
        },

        async endBrowserSession(id) {
          if (!access) return;
          await calls.exclusive('browserSessions', async () => {
            set({ error: null });
            const own = get().browserSessions?.find((s) => s.id === id)?.current === true;
            try {
              await access.end(id);
              if (own) {
                set({ link: 'signed-out', browserSessions: null });
                return;
              }
            } catch (e) {
              calls.fail(e);
            }
            try {
              await load();
            } catch {
              // The error shown is the end's; the list stays as it was.
            }
          });
        },
      },
    };
  };
