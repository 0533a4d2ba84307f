// A check's verdict as a word (never colour alone) and the report's tally.
import type { DiagnosticVerdict, DiagnosticsReport } from '../../../contracts/diagnostics.js';

export const VERDICT_WORDS: Readonly<Record<DiagnosticVerdict, string>> = {
  ok: 'OK',
  warning: 'Warning',
  problem: 'Problem',
  skipped: 'Skipped',
};

export function tally(report: DiagnosticsReport): string {
  const parts = [
    report.problems === 0
      ? 'No problems'
      : `${report.problems} problem${report.problems === 1 ? '' : 's'}`,
    `${report.warnings} warning${report.warnings === 1 ? '' : 's'}`,
  ];
  return `${parts.join(', ')}.`;
}
