// Places in a person's language: a country's name by its ISO 3166-1 code, from the ICU data
// that Node and Chromium carry (Intl.DisplayNames), so every language names every country.
import type { Language } from './languages.js';

const names = new Map<Language, Intl.DisplayNames>();

/** "Japan", "日本", "Япония", "ژاپن"; the code itself for one ICU does not know. */
export function countryName(code: string, language: Language): string {
  let display = names.get(language);
  if (!display) {
    display = new Intl.DisplayNames([language], { type: 'region', fallback: 'code' });
    names.set(language, display);
  }
  try {
    return display.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}
