// Numbers a person reads: data amounts, latencies, prices, account numbers in groups, each in
// the language's own digits and units (Intl).
import type { Language } from '../../../contracts/i18n/languages.js';

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** 3221225472 -> "3 GB", "3 ГБ", "۳ GB" (binary multiples, one decimal below 10). */
export function bytesWords(n: number, language: Language = 'en'): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return new Intl.NumberFormat(language, {
    style: 'unit',
    unit: UNITS[unit],
    // "512 bytes": a bare "byte" reads wrong in English.
    unitDisplay: unit === 0 ? 'long' : 'short',
  }).format(shown);
}

/** 42 -> "42 ms", "42 мс", "۴۲ میلی‌ثانیه". */
export function millisecondsWords(ms: number, language: Language = 'en'): string {
  return new Intl.NumberFormat(language, { style: 'unit', unit: 'millisecond' }).format(ms);
}

/** A monthly price in euros: "€5", "5 €". */
export function euroWords(amount: number, language: Language = 'en'): string {
  return new Intl.NumberFormat(language, {
    style: 'currency',
    currency: 'EUR',
    minimumFractionDigits: Number.isInteger(amount) ? 0 : 2,
  }).format(amount);
}

/** "1234567812345678" -> "1234 5678 1234 5678" (always Latin digits: it is typed as shown). */
export function groupedAccountNumber(digits: string): string {
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}
