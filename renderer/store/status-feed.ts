// How the engine's status reaches the replica, and what follows from it. Events are the newer
// truth: a call's status answer is kept only when no status event came while it was under way
// (answers and events travel apart). A disconnect ends the latency history, the notices and the
// last connect's facts; a sign-out ends the session's data; a session that begins is read.
import type { FaceEvent } from '../../contracts/ipc.js';
import type { LocalStatus } from '../../contracts/local-api.js';
import type { EngineReplica } from './engine-store.js';
import { appendSample, parseLatencyMs } from './latency-history.js';
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
}

export interface StatusFeedDeps extends SliceDeps {
  set: SetEngine;
  get: GetEngine;
  now: () => number;
}

export function createStatusFeed({ set, get, now, transport, calls }: StatusFeedDeps): StatusFeed {
  /** Counts status events (see since). */
  let statusEvents = 0;

  function applyStatus(next: LocalStatus, fromEvent: boolean): void {
    const prev = get().status;
    const patch: Partial<EngineReplica> = { status: next };
    const ms = parseLatencyMs(next.latency);
    if (fromEvent && ms !== null) patch.latency = appendSample(get().latency, { at: now(), ms });
    if (next.status === 'disconnected') {
      patch.latency = [];
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
    const sessionChanged =
      prev !== null &&
      (prev.signed_in !== next.signed_in || prev.service_configured !== next.service_configured);
    if (sessionChanged) void loadSession(next);
  }

  async function loadSession(status: LocalStatus): Promise<void> {
    if (!status.service_configured || !status.signed_in) return;
    await Promise.all([loadRegions(), get().actions.loadAccount()]);
  }

  async function loadRegions(): Promise<void> {
    await calls.exclusive('regions', async () => {
      try {
        set({ regions: await transport.call('listRegions', {}) });
      } catch (e) {
        calls.fail(e);
      }
    });
  }

  return {
    event(e) {
      if (e.type === 'status') {
        statusEvents += 1;
        applyStatus(e.status, true);
      } else {
        set({ notices: addNotice(get().notices, e.notice) });
      }
    },
    since() {
      const before = statusEvents;
      return (answer) => {
        if (statusEvents === before) applyStatus(answer, false);
      };
    },
    loadSession,
  };
}
