// netcli's words for a diagnostics report: one line per check with its mark, the fix indented
// below a check that needs one, and a count at the end.
import type { DiagnosticsReport, DiagnosticVerdict } from '../../contracts/index.js';

const MARKS: Readonly<Record<DiagnosticVerdict, string>> = {
  ok: 'ok  ',
  warning: 'WARN',
  problem: 'FAIL',
  skipped: 'skip',
};

function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

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
      : `${count(report.problems, 'problem')}, ${count(report.warnings, 'warning')}`,
  );
  return lines;
}
