// The terminal UI's language and the measures of its text: which language it speaks (the
// `language` setting, else the system's), numbers in that language's digits, and the width of
// text as a terminal draws it (a Chinese character takes two cells), for the columns.
import { faceLanguage, type ClientConfig } from '../../contracts/client-config.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';
import type { Language } from '../../contracts/i18n/languages.js';

/** The UI's language: the engine's `language` setting, or the system's when it is `auto`. */
export function tuiLanguage(config: ClientConfig | null, system: Language): Language {
  return faceLanguage(config?.language ?? 'auto', system);
}

/** The words of the UI's language, with the language itself. */
export interface TuiWords {
  t: Translate;
  language: Language;
}

export function wordsOf(language: Language): TuiWords {
  return { t: translator(language), language };
}

/** A number in the language's digits and separators (Persian: ۱۲٫۵). */
export function formatNumber(
  value: number,
  language: Language,
  options: Intl.NumberFormatOptions = {},
): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 1, ...options }).format(value);
}

/** A share (0..1) as a percentage in the language's own form (Persian: ۴۰٪). */
export function formatPercent(share: number, language: Language): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 }).format(
    share,
  );
}

/** The engine's "12ms" / "9.5ms": the number of milliseconds, or null for another form. */
export function latencyMs(latency: string | null | undefined): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*ms$/.exec(latency ?? '');
  return m ? Number(m[1]) : null;
}

/** A latency in the language's words and digits ("12ms", "12 毫秒", "۱۲ میلی‌ثانیه"). */
export function latencyWords(latency: string, { t }: TuiWords): string {
  const ms = latencyMs(latency);
  return ms === null ? latency : t('tui.units.ms', { value: ms });
}

/**
 * East Asian wide and fullwidth characters (two cells in a terminal): Hangul Jamo, CJK
 * radicals, punctuation, kana, Bopomofo, CJK ideographs and their extensions, Yi, Hangul
 * syllables, compatibility ideographs, vertical and small forms, fullwidth forms.
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** What takes no cell: combining marks, format characters (ZWNJ in Persian), variation selectors. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\ufe00-\ufe0f]$/u;

/** How many cells `text` takes on a terminal. */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ZERO.test(ch)) continue;
    width += WIDE.test(ch) ? 2 : 1;
  }
  return width;
}

/** `text` cut to at most `width` cells. */
export function cutTo(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return out;
}

/** `text` in a column of `width` cells, padded at its end (cut when longer). */
export function padEnd(text: string, width: number): string {
  const cut = cutTo(text, width);
  return cut + ' '.repeat(Math.max(0, width - textWidth(cut)));
}

/** `text` in a column of `width` cells, padded at its start (never cut). */
export function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - textWidth(text))) + text;
}

/** A cell of `width`: a longer text keeps its end (a path's program), marked as cut. */
export function fitEnd(text: string, width: number): string {
  if (textWidth(text) <= width) return padEnd(text, width);
  const chars = [...text];
  let tail = '';
  while (chars.length > 0 && textWidth(`…${chars.at(-1)}${tail}`) <= width)
    tail = chars.pop()! + tail;
  return padEnd(`…${tail}`, width);
}

/** A run of Latin text: words of letters, digits and the marks of commands, addresses and keys. */
const LATIN_RUN =
  /[A-Za-z0-9<[\-/][A-Za-z0-9.:/\-_<>[\]@*+=|~']*(?: +[A-Za-z0-9<[\-/][A-Za-z0-9.:/\-_<>[\]@*+=|~']*)*/g;

/** Left-to-right isolate (U+2066) and its end (U+2069). */
const LRI = '\u2066';
const PDI = '\u2069';

/**
 * Persian text with each Latin run (a command, a key, an address, a name) in a left-to-right
 * isolate, so that a terminal that orders text by Unicode's bidirectional algorithm keeps
 * `netcli init --endpoint <url>` whole, in its order, wherever it stands in a Persian sentence.
 * The layout stays left to right (terminals do not mirror); the isolates take no cell, and a
 * terminal without that algorithm draws nothing for them. `text` is screened already: its own
 * bidirectional controls are gone. A run's closing `.` or `:` stays outside (the sentence's).
 */
export function isolateLatin(text: string): string {
  return text.replace(LATIN_RUN, (run) => {
    const body = run.replace(/[.:]+$/, '');
    return `${LRI}${body}${PDI}${run.slice(body.length)}`;
  });
}
