// Diagnostics: one click runs every check in the engine (about ten seconds).
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { CheckTable } from './check-table.js';
import { tally } from './verdict-words.js';

export function DiagnosticsScreen() {
  const { t, language } = useWords();
  const report = useEngine((s) => s.diagnostics);
  const running = useEngine((s) => s.busy.diagnose === true);
  const { runDiagnostics } = useActions();
  const checkedAt = report
    ? new Intl.DateTimeFormat(language, { timeStyle: 'medium' }).format(new Date(report.checked_at))
    : '';
  return (
    <section aria-labelledby="diagnostics-title" className="card diagnostics">
      <h2 className="card__title" id="diagnostics-title">
        {t('app.diagnostics.title')}
      </h2>
      <p>{t('app.diagnostics.intro')}</p>
      <button
        type="button"
        className="button button--primary"
        aria-disabled={running}
        onClick={() => !running && void runDiagnostics()}
      >
        {t('app.diagnostics.run')}
      </button>
      <p role="status" className="diagnostics__progress">
        {running
          ? t('app.diagnostics.running')
          : report
            ? t('app.diagnostics.done', { tally: tally(report, t), time: checkedAt })
            : ''}
      </p>
      {report ? <CheckTable report={report} /> : null}
    </section>
  );
}
