// A check's verdict as a word (never colour alone) and the report's tally.
import type { DiagnosticVerdict, DiagnosticsReport } from '../../../contracts/diagnostics.js';
import { diagnosticCountWords } from '../../../contracts/words/diagnostics.js';

export const VERDICT_WORDS: Readonly<Record<DiagnosticVerdict, string>> = {
  ok: 'OK',
  warning: 'Warning',
  problem: 'Problem',
  skipped: 'Skipped',
};

export function tally(report: DiagnosticsReport): string {
  const parts = [
    report.problems === 0 ? 'No problems' : diagnosticCountWords('problems', report.problems),
    diagnosticCountWords('warnings', report.warnings),
  ];
  return `${parts.join(', ')}.`;
}
