// The diagnostics report's tally in words, for every face that shows one (netcli diagnose, the
// app's diagnostics screen): counted in each language's plural forms, the number in its digits.
import { translator } from '../i18n/translator.js';

// English, from the catalog (contracts/i18n/catalogs/en.json) like every language.
const t = translator('en');

/** "1 problem", "3 warnings". */
export function diagnosticCountWords(kind: 'problems' | 'warnings', count: number): string {
  return t(`diagnostics.${kind}`, { count });
}
