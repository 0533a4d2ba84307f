// A check's verdict as a word (never colour alone), a check's title, and the report's tally.
import type {
  DiagnosticCheck,
  DiagnosticCheckId,
  DiagnosticVerdict,
  DiagnosticsReport,
} from '../../../contracts/diagnostics.js';
import { DIAGNOSTIC_CHECK_IDS } from '../../../contracts/diagnostics.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import { diagnosticCountWords } from '../../../contracts/words/diagnostics.js';
import { sentence } from '../../store/error-words.js';
import { english } from '../words/english.js';

export function verdictWords(verdict: DiagnosticVerdict, t: Translate = english): string {
  return t(`app.diagnostics.verdicts.${verdict}`);
}

/** A check's title in the language; a newer engine's check by the title it sent. */
export function checkTitle(id: string, title: string, t: Translate = english): string {
  return (DIAGNOSTIC_CHECK_IDS as readonly string[]).includes(id)
    ? t(`app.diagnostics.checks.${id as DiagnosticCheckId}`)
    : title;
}

export function tally(report: DiagnosticsReport, t: Translate = english): string {
  return t('app.diagnostics.tally', {
    problems:
      report.problems === 0
        ? t('app.diagnostics.noProblems')
        : diagnosticCountWords('problems', report.problems, t),
    warnings: diagnosticCountWords('warnings', report.warnings, t),
  });
}

function knownCheck(id: string): id is DiagnosticCheckId {
  return (DIAGNOSTIC_CHECK_IDS as readonly string[]).includes(id);
}

/**
 * What a check found, in the app's words: by its id and whether it passed. A newer engine's
 * check, unknown here, by its own words.
 */
export function checkFinding(check: DiagnosticCheck, t: Translate = english): string {
  if (check.verdict === 'skipped') return t('app.diagnostics.skipped');
  if (!knownCheck(check.id)) return sentence(check.summary, t);
  return t(`app.diagnostics.findings.${check.id}.${check.verdict === 'ok' ? 'ok' : 'bad'}`);
}

/** What to do about a check that did not pass, in the app's words (its controls, no command). */
export function checkFix(check: DiagnosticCheck, t: Translate = english): string {
  if (check.verdict === 'ok' || check.verdict === 'skipped') return '';
  if (!knownCheck(check.id)) return check.fix ? sentence(check.fix, t) : '';
  return t(`app.diagnostics.fixes.${check.id}`);
}

/** The checks whose fix is a setting: the home country's picker, or Settings as a whole. */
const FIX_SETTINGS: Partial<Record<DiagnosticCheckId, 'home_country' | 'settings'>> = {
  'api-access': 'settings',
  'node-udp': 'settings',
  censorship: 'settings',
  'dns-leak': 'settings',
  'ipv6-leak': 'settings',
  'kill-switch': 'settings',
  split: 'home_country',
  'domestic-dns': 'home_country',
};

export function fixSetting(check: DiagnosticCheck): 'home_country' | 'settings' | null {
  return knownCheck(check.id) ? (FIX_SETTINGS[check.id] ?? null) : null;
}
