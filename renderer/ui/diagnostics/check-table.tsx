// Each diagnostic check with its verdict, what was found and what to do, in the app's words: the
// finding's words from the catalog (contracts/words/diagnostics.ts) with a button that makes its
// fix (a setting set, the home-country picker, a reconnect, another run). From an engine whose
// findings this build does not know, the app's words by the check and its verdict, the engine's
// own (English, naming commands and servers) only in a closed "what the engine found" disclosure. The
// roles are spelled out because narrow windows lay the rows out as blocks, which costs a table
// its semantics in some browsers.
import {
  diagnosticSettingPatch,
  type DiagnosticAction,
  type DiagnosticCheck,
  type DiagnosticsReport,
} from '../../../contracts/diagnostics.js';
import {
  diagnosticActionLabel,
  diagnosticFixText,
  diagnosticSummaryText,
  hasDiagnosticWords,
} from '../../../contracts/words/diagnostics.js';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';
import { useActions } from '../store-context.js';
import { HOME_COUNTRY_SETTING_ID } from '../settings/language-settings.js';
import { checkFinding, checkFix, checkTitle, fixSetting, verdictWords } from './verdict-words.js';

/** Shows Settings and puts the keyboard on the setting `id` (the shell follows the fragment). */
function openSetting(id: string | null) {
  window.location.hash = 'settings';
  if (id === null) return;
  // The screen is drawn on the next frames.
  const focus = (tries: number) => {
    const target = document.getElementById(id);
    if (target) {
      target.scrollIntoView({ block: 'center' });
      target.focus();
    } else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
  };
  requestAnimationFrame(() => focus(10));
}

/**
 * The check as the app words it: a node is "the server" (its id is for details, never a
 * sentence), everything else as the engine found it.
 */
function withoutNodeIds(check: DiagnosticCheck, server: string): DiagnosticCheck {
  if (check.params?.node === undefined) return check;
  return { ...check, params: { ...check.params, node: server } };
}

/** The button that makes a finding's fix: the app's own control for it, never a command. */
function ActionButton(props: { action: DiagnosticAction }) {
  const { t } = useWords();
  const actions = useActions();
  const action = props.action;
  const run = () => {
    switch (action.kind) {
      case 'setting': {
        const patch = diagnosticSettingPatch(action);
        if (patch) void actions.patchConfig(patch).then(() => actions.runDiagnostics());
        return;
      }
      case 'choose-setting':
        return openSetting(action.key === 'home_country' ? HOME_COUNTRY_SETTING_ID : null);
      case 'reconnect':
        return void actions.connect();
      case 'rerun':
        return void actions.runDiagnostics();
      case 'region':
        window.location.hash = 'home';
        return;
      case 'setup':
        return openSetting(null);
    }
  };
  return (
    <button type="button" className="button button--quiet" onClick={run}>
      {diagnosticActionLabel(action, t)}
    </button>
  );
}

function CheckRow(props: { check: DiagnosticCheck }) {
  const { t, language } = useWords();
  const c = withoutNodeIds(props.check, t('app.diagnostics.server'));
  // This build words the finding: the words say what was found and what to do, a button does it.
  const worded = hasDiagnosticWords(c);
  const found = worded ? sentence(diagnosticSummaryText(c, t, language), t) : checkFinding(c, t);
  const wordedFix = worded ? diagnosticFixText(c, t, language) : null;
  const fix = wordedFix !== null ? sentence(wordedFix, t) : worded ? '' : checkFix(c, t);
  const setting = worded ? null : fixSetting(c);
  return (
    <tr role="row" className={`check check--${c.verdict}`}>
      <th role="rowheader" scope="row">
        {checkTitle(c.id, c.title, t)}
      </th>
      <td role="cell">
        <span className={`verdict verdict--${c.verdict}`}>{verdictWords(c.verdict, t)}</span>
      </td>
      <td role="cell">
        {found}
        {!worded && (c.summary || c.fix) ? (
          <details className="check__engine">
            <summary>{t('app.diagnostics.engineDetail')}</summary>
            {/* An engine this build does not know the words of: English, left to right. */}
            <p lang="en" dir="ltr">
              {sentence(c.summary)}
              {c.fix ? ` ${sentence(c.fix)}` : ''}
            </p>
          </details>
        ) : null}
      </td>
      <td role="cell" className="check__fix" data-label={t('app.diagnostics.whatToDo')}>
        {fix}
        {fix && worded && c.action ? (
          <>
            {' '}
            <ActionButton action={c.action} />
          </>
        ) : null}
        {fix && setting ? (
          <>
            {' '}
            <button
              type="button"
              className="button button--quiet"
              onClick={() =>
                openSetting(setting === 'home_country' ? HOME_COUNTRY_SETTING_ID : null)
              }
            >
              {t('app.diagnostics.openSettings')}
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}

export function CheckTable(props: { report: DiagnosticsReport }) {
  const { t } = useWords();
  return (
    <div className="table-wrap">
      <table role="table" className="checks" data-checked-at={props.report.checked_at}>
        <caption>{t('app.diagnostics.caption')}</caption>
        <thead role="rowgroup">
          <tr role="row">
            <th role="columnheader" scope="col">
              {t('app.diagnostics.check')}
            </th>
            <th role="columnheader" scope="col">
              {t('app.diagnostics.verdict')}
            </th>
            <th role="columnheader" scope="col">
              {t('app.diagnostics.found')}
            </th>
            <th role="columnheader" scope="col">
              {t('app.diagnostics.whatToDo')}
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          {props.report.checks.map((c) => (
            <CheckRow key={c.id} check={c} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
