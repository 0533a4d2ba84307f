// How the engine's status reaches the replica, and what follows from it. Events are the newer
// truth: a call's status answer is kept only when no status event came while it was under way
// (answers and events travel apart). A disconnect ends the notices and the last connect's facts
// (the engine's status carries the latency history, cleared by the engine); a sign-out ends the
// session's data; a session that begins is read. The regions (their latencies) are read again
// when contracts/status-changes.ts says they may have changed (the rule every face follows):
// not on every latency sample.
import type { FaceEvent } from '../../contracts/ipc.js';
import type { LocalStatus } from '../../contracts/local-api.js';
import { regionsMayHaveChanged, sessionChanged } from '../../contracts/status-changes.js';
import type { EngineReplica } from './engine-store.js';
import { addNotice } from './notices.js';
import type { GetEngine, SetEngine, SliceDeps } from './slice.js';

export interface StatusFeed {
  /** An event of the engine's stream: a status or a notice. */
  event(e: FaceEvent): void;
  /**
   * Notes the status events so far, before a call that answers a status: the function returned
   * keeps that answer unless an event came meanwhile.
   */
  since(): (answer: LocalStatus) => void;
  /** Reads what needs a configured service and a signed-in device: regions, account, devices. */
  loadSession(status: LocalStatus): Promise<void>;
  /**
   * Reads the regions (with the engine's latest latencies). Asked while a read is under way, it
   * reads once more after it, and settles when that read is done: the answer is never older
   * than the ask.
   */
  loadRegions(): Promise<void>;
}

export interface StatusFeedDeps extends SliceDeps {
  set: SetEngine;
  get: GetEngine;
}

export function createStatusFeed({ set, get, transport, calls }: StatusFeedDeps): StatusFeed {
  /** Counts status events (see since). */
  let statusEvents = 0;
  /** The regions read under way, and whether another was asked meanwhile. */
  let regionsRead: Promise<void> | null = null;
  let readAgain = false;
  /**
   * The error a failed regions read showed: a later read that succeeds takes it away (a read
   * started by a status change may fail while the tunnel is being replaced; the next one, once
   * connected again, answers).
   */
  let regionsError: EngineReplica['error'] = null;

  function applyStatus(next: LocalStatus): void {
    const prev = get().status;
    const patch: Partial<EngineReplica> = { status: next };
    if (next.status === 'disconnected') {
      patch.notices = [];
      patch.lastConnect = null;
    }
    if (!next.signed_in) {
      patch.account = null;
      patch.devices = null;
      patch.regions = null;
      patch.addedDevice = null;
      patch.addDeviceError = null;
    }
    set(patch);
    if (prev !== null && sessionChanged(prev, next)) void loadSession(next);
    else if (
      prev !== null &&
      next.signed_in &&
      next.service_configured &&
      regionsMayHaveChanged(prev, next)
    )
      void loadRegions();
  }

  async function loadSession(status: LocalStatus): Promise<void> {
    if (!status.service_configured || !status.signed_in) return;
    await Promise.all([loadRegions(), get().actions.loadAccount()]);
  }

  function loadRegions(): Promise<void> {
    if (regionsRead) {
      readAgain = true;
      return regionsRead;
    }
    regionsRead = (async () => {
      try {
        await calls.exclusive('regions', async () => {
          do {
            readAgain = false;
            try {
              const regions = await transport.call('listRegions', {});
              // Signed out meanwhile: the session's data is gone, and stays gone.
              if (get().status?.signed_in !== false) set({ regions });
              if (regionsError !== null && get().error === regionsError) set({ error: null });
              regionsError = null;
            } catch (e) {
              regionsError = calls.describe(e);
              set({ error: regionsError });
            }
          } while (readAgain);
        });
      } finally {
        regionsRead = null;
      }
    })();
    return regionsRead;
  }

  return {
    event(e) {
      if (e.type === 'status') {
        statusEvents += 1;
        applyStatus(e.status);
      } else {
        set({ notices: addNotice(get().notices, e.notice) });
      }
    },
    since() {
      const before = statusEvents;
      return (answer) => {
        if (statusEvents === before) applyStatus(answer);
      };
    },
    loadSession,
    loadRegions,
  };
}
