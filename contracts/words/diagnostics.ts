// The diagnostics report's tally in words, for every face that shows one (netcli diagnose, the
// app's diagnostics screen): counted in each language's plural forms, the number in its digits.
import { DIAGNOSTIC_CHECK_IDS, type DiagnosticCheckId } from '../diagnostics.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

/** "1 problem", "3 warnings". */
export function diagnosticCountWords(
  kind: 'problems' | 'warnings',
  count: number,
  t: Translate = english,
): string {
  return t(`diagnostics.${kind}`, { count });
}

/** A check's title ("DNS leak"), by its id; one this build does not know as the engine named it. */
export function diagnosticTitle(id: string, fallback: string, t: Translate = english): string {
  return (DIAGNOSTIC_CHECK_IDS as readonly string[]).includes(id)
    ? t(`diagnostics.titles.${id as DiagnosticCheckId}`)
    : fallback;
}
