// netcli's words for a diagnostics report: one line per check with its mark, the fix indented
// below a check that needs one, and a count at the end.
import {
  diagnosticCountWords,
  type DiagnosticsReport,
  type DiagnosticVerdict,
} from '../../contracts/index.js';

const MARKS: Readonly<Record<DiagnosticVerdict, string>> = {
  ok: 'ok  ',
  warning: 'WARN',
  problem: 'FAIL',
  skipped: 'skip',
};

export function formatDiagnostics(report: DiagnosticsReport): string[] {
  const lines: string[] = [];
  for (const c of report.checks) {
    lines.push(`${MARKS[c.verdict]}  ${c.title}: ${c.summary}`);
    if (c.fix && (c.verdict === 'warning' || c.verdict === 'problem'))
      lines.push(`      fix: ${c.fix}`);
  }
  lines.push(
    report.problems === 0 && report.warnings === 0
      ? 'No problems found.'
      : `${diagnosticCountWords('problems', report.problems)}, ${diagnosticCountWords('warnings', report.warnings)}`,
  );
  return lines;
}
