// What the actions share: calls under way (shown, and not started twice), the last error in
// words and the fields refused. A failed call's error is described here, the same way for all.
import type { FieldError } from '../../contracts/problem.js';
import { toFaceCallError } from '../transport/face-call-error.js';
import { describeError, type ShownError } from './error-words.js';
import type { EngineSlice, GetEngine, SetEngine } from './slice.js';
import { storeWords } from './store-words.js';

/** Calls under way that a screen shows (and that are not started twice). */
export type BusyKey =
  | 'refresh'
  | 'regions'
  | 'latencyCheck'
  | 'connect'
  | 'disconnect'
  | 'config'
  | 'session'
  | 'account'
  | 'diagnose'
  | 'revoke'
  | 'addDevice'
  | 'browserSessions'
  | 'splitRules';

export interface CallsReplica {
  error: ShownError | null;
  /** Input refused, by us before sending or by the engine (its per-field errors). */
  fieldErrors: FieldError[];
  busy: Partial<Record<BusyKey, true>>;
}

export interface CallsActions {
  dismissError(): void;
}

export const EMPTY_CALLS: CallsReplica = { error: null, fieldErrors: [], busy: {} };

export interface Calls {
  /** Runs `fn` marked busy under `key`, unless it already is; false when skipped. */
  exclusive(key: BusyKey, fn: () => Promise<void>): Promise<boolean>;
  /** A failed call's error in words, blaming the engine when its link is down. */
  describe(e: unknown): ShownError;
  /** Shows a failed call's error. */
  fail(e: unknown): void;
  /** Shows a refusal's field errors beside their fields, or else the error. */
  failAtFields(e: unknown): void;
  /**
   * A step of setting up or signing in: one at a time (busy `session`), earlier errors cleared,
   * a failure shown by `onError` (default: fail), everything read afresh once it worked. Whether
   * it worked.
   */
  sessionStep(step: () => Promise<void>, onError?: (e: unknown) => void): Promise<boolean>;
}

export function createCalls(set: SetEngine, get: GetEngine): Calls {
  const setBusy = (key: BusyKey, on: boolean) =>
    set((s) => {
      const busy = { ...s.busy };
      if (on) busy[key] = true;
      else delete busy[key];
      return { busy };
    });

  const describe = (e: unknown) =>
    describeError(toFaceCallError(e).toFaceError(), get().link, storeWords(get()));

  const fail = (e: unknown) => set({ error: describe(e) });

  const exclusive: Calls['exclusive'] = async (key, fn) => {
    if (get().busy[key]) return false;
    setBusy(key, true);
    try {
      await fn();
    } finally {
      setBusy(key, false);
    }
    return true;
  };

  return {
    exclusive,
    async sessionStep(step, onError = fail) {
      let done = false;
      await exclusive('session', async () => {
        set({ fieldErrors: [], error: null });
        try {
          await step();
          done = true;
        } catch (e) {
          onError(e);
        }
      });
      if (done) await get().actions.refresh();
      return done;
    },
    describe,
    fail,
    failAtFields(e) {
      const error = toFaceCallError(e);
      if (error.errors && error.errors.length > 0) set({ fieldErrors: error.errors });
      else fail(error);
    },
  };
}

export const createCallsSlice =
  (): EngineSlice<CallsReplica & { actions: CallsActions }> => (set) => ({
    ...EMPTY_CALLS,
    actions: {
      dismissError() {
        set({ error: null });
      },
    },
  });
