// netcli's words for a diagnostics report: one line per check with its mark, the fix indented
// below a check that needs one, and a count at the end.
import {
  diagnosticCommand,
  diagnosticCountWords,
  diagnosticFixText,
  diagnosticSummaryText,
  diagnosticTitle,
  type DiagnosticCheck,
  type DiagnosticsReport,
  type DiagnosticVerdict,
  type Language,
  type Translate,
} from '../../contracts/index.js';
import { english } from './words.js';

/** The verdicts' marks: the same four letters in every language, as a script reads them. */
const MARKS: Readonly<Record<DiagnosticVerdict, string>> = {
  ok: 'ok  ',
  warning: 'WARN',
  problem: 'FAIL',
  skipped: 'skip',
};

/**
 * A check's line and its fix. English: the engine's own words, written for a terminal (the fix
 * names the command). Another language: the catalog's words for the finding and, where a
 * command makes the fix, that command after them, as typed.
 */
function checkLines(c: DiagnosticCheck, t: Translate, language: Language): string[] {
  const needsFix = c.verdict === 'warning' || c.verdict === 'problem';
  if (language === 'en') {
    const lines = [`${MARKS[c.verdict]}  ${c.title}: ${c.summary}`];
    if (c.fix && needsFix) lines.push(`      ${t('output.diagnose.fix', { fix: c.fix })}`);
    return lines;
  }
  const title = diagnosticTitle(c.id, c.title, t);
  const lines = [`${MARKS[c.verdict]}  ${title}: ${diagnosticSummaryText(c, t, language)}`];
  const words = needsFix ? diagnosticFixText(c, t, language) : null;
  if (words !== null) {
    const command = diagnosticCommand(c);
    lines.push(`      ${t('output.diagnose.fix', { fix: words })}`);
    if (command) lines.push(`      ${command}`);
  }
  return lines;
}

export function formatDiagnostics(
  report: DiagnosticsReport,
  t: Translate = english,
  language: Language = 'en',
): string[] {
  const lines = report.checks.flatMap((c) => checkLines(c, t, language));
  lines.push(
    report.problems === 0 && report.warnings === 0
      ? t('output.diagnose.none')
      : t('output.diagnose.tally', {
          problems: diagnosticCountWords('problems', report.problems, t),
          warnings: diagnosticCountWords('warnings', report.warnings, t),
        }),
  );
  return lines;
}
