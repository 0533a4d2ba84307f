// Diagnostics: one click runs every check in the engine (about ten seconds).
import { useActions, useEngine } from '../store-context.js';
import { CheckTable } from './check-table.js';
import { tally } from './verdict-words.js';

export function DiagnosticsScreen() {
  const report = useEngine((s) => s.diagnostics);
  const running = useEngine((s) => s.busy.diagnose === true);
  const { runDiagnostics } = useActions();
  return (
    <section aria-labelledby="diagnostics-title" className="card diagnostics">
      <h2 className="card__title" id="diagnostics-title">
        Diagnostics
      </h2>
      <p>
        Checks the engine, the service, your clock, the server over UDP and TCP, DNS and IPv6 leaks,
        the MTU, the kill switch and split tunneling, and says what to do about each problem.
      </p>
      <button
        type="button"
        className="button button--primary"
        aria-disabled={running}
        onClick={() => !running && void runDiagnostics()}
      >
        Run diagnostics
      </button>
      <p role="status" className="diagnostics__progress">
        {running
          ? 'Running the checks… this takes about ten seconds.'
          : report
            ? `${tally(report)} Checked at ${new Date(report.checked_at).toLocaleTimeString()}.`
            : ''}
      </p>
      {report ? <CheckTable report={report} /> : null}
    </section>
  );
}
