// A region's facts in the person's language: its latency ("12 ms", "۱۲ ms") and load ("40%",
// "٪۴۰"), each in the language's own number forms.
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';

const numbers = new Map<string, Intl.NumberFormat>();

function format(language: Language, options: Intl.NumberFormatOptions, n: number): string {
  const key = `${language}:${JSON.stringify(options)}`;
  let f = numbers.get(key);
  if (!f) {
    f = new Intl.NumberFormat(language, options);
    numbers.set(key, f);
  }
  return f.format(n);
}

/** Milliseconds as a number in the language's digits (one decimal at most). */
export function formatMs(ms: number, language: Language): string {
  return format(language, { maximumFractionDigits: 1 }, ms);
}

/** The engine's "12.5ms" as a number; null when not measured. */
export function latencyMsOf(latency: string | null | undefined): number | null {
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(latency ?? '');
  return m ? Number(m[1]) : null;
}

/** "12 ms" in the language; null when not measured. */
export function latencyText(
  latency: string | null | undefined,
  t: Translate,
  language: Language,
): string | null {
  const ms = latencyMsOf(latency);
  return ms === null ? null : t('home.units.ms', { ms: formatMs(ms, language) });
}

/** A load of 0..1 as a whole percentage in the language ("40%", "40 %", "٪۴۰"). */
export function loadText(load: number, language: Language): string {
  const share = Math.min(Math.max(load, 0), 1);
  return format(language, { style: 'percent', maximumFractionDigits: 0 }, share);
}
