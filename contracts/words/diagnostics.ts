// The diagnostics report's tally in words, for every face that shows one (netcli diagnose, the
// app's diagnostics screen): counted in each language's plural forms, the number in its digits.
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
