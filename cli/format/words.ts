// What every formatter of netcli shares about its words: English (the default language of a
// formatter called without a translator: the tests), and the forms of numbers, dates and sizes
// in the translator's language.
import { LANGUAGES, translator, type Language, type Translate } from '../../contracts/index.js';

export const english: Translate = translator('en');

/** Whether `t` speaks English (where the engine's own English words are shown as they came). */
export function isEnglish(t: Translate): boolean {
  return t === english;
}

/** The language `t` speaks (English for a translator that is not one of the languages'). */
export function languageOf(t: Translate): Language {
  return LANGUAGES.find((l) => translator(l) === t) ?? 'en';
}

/** A number in the language's digits and separators (Persian digits in Persian). */
export function numberText(
  value: number,
  t: Translate,
  options?: Intl.NumberFormatOptions,
): string {
  return new Intl.NumberFormat(languageOf(t), options).format(value);
}

/** A latency as the engine writes it ("12ms"), in the language's digits and unit. */
export function latencyText(latency: string, t: Translate): string {
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(latency);
  if (isEnglish(t) || !m) return latency;
  return t('output.units.ms', { value: Number(m[1]) });
}

/** A month as the engine writes it ("2026-05"), as the language names it ("май 2026 г."). */
export function monthText(period: string, t: Translate): string {
  const m = /^(\d{4})-(\d{2})$/.exec(period);
  if (isEnglish(t) || !m) return period;
  const month = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  // The engine counts Gregorian months: named in that calendar (not the Persian one, whose months
  // do not match them).
  return new Intl.DateTimeFormat(languageOf(t), {
    year: 'numeric',
    month: 'long',
    timeZone: 'UTC',
    calendar: 'gregory',
  }).format(month);
}
