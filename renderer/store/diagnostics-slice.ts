// Diagnostics: the engine's last report on its checks, run on request.
import type { DiagnosticsReport } from '../../contracts/diagnostics.js';
import type { EngineSlice, SliceDeps } from './slice.js';

export interface DiagnosticsReplica {
  diagnostics: DiagnosticsReport | null;
}

export interface DiagnosticsActions {
  runDiagnostics(): Promise<void>;
}

export const EMPTY_DIAGNOSTICS: DiagnosticsReplica = { diagnostics: null };

export const createDiagnosticsSlice =
  ({
    transport,
    calls,
  }: SliceDeps): EngineSlice<DiagnosticsReplica & { actions: DiagnosticsActions }> =>
  (set) => ({
    ...EMPTY_DIAGNOSTICS,
    actions: {
      async runDiagnostics() {
        await calls.exclusive('diagnose', async () => {
          set({ error: null });
          try {
            set({ diagnostics: await transport.call('diagnose', {}) });
          } catch (e) {
            calls.fail(e);
          }
        });
      },
    },
  });
