// The languages Ferry speaks, and which of them a person's system or browser asks for: a POSIX
// locale (LC_ALL, LC_MESSAGES, LANG; GNU's LANGUAGE list), a BCP 47 tag, or the browser's list.
// Pure: the callers pass the environment in.

/** The languages with a catalog, English first (the fallback and the source of the others). */
export const LANGUAGES = ['en', 'zh-CN', 'zh-TW', 'ru', 'fa'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's name in its own words, as a language picker lists them. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  'zh-CN': '简体中文',
  'zh-TW': '繁體中文',
  ru: 'Русский',
  fa: 'فارسی',
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** Chinese written in Traditional characters: by script, or by a region that writes them. */
const TRADITIONAL_REGIONS = new Set(['tw', 'hk', 'mo']);

/**
 * The language of a locale name or language tag, or null for one without a catalog (and for the
 * C/POSIX locale, which names no language): `ru_RU.UTF-8`, `zh_TW.UTF-8`, `zh_HK` and
 * `zh-Hant-*` → zh-TW, `zh_CN`, `zh_SG`, `zh` and `zh-Hans` → zh-CN, `fa_IR`, `en-US`.
 */
export function languageOfLocale(tag: string): Language | null {
  // POSIX: language[_territory][.codeset][@modifier]; BCP 47: language[-script][-region]...
  const name = tag.trim().split('@')[0]!.split('.')[0]!;
  if (name === '' || name === 'C' || name === 'POSIX') return null;
  const [language, ...rest] = name.toLowerCase().split(/[-_]/);
  switch (language) {
    case 'en':
    case 'ru':
    case 'fa':
      return language;
    case 'zh': {
      if (rest.includes('hant')) return 'zh-TW';
      if (rest.includes('hans')) return 'zh-CN';
      return rest.some((subtag) => TRADITIONAL_REGIONS.has(subtag)) ? 'zh-TW' : 'zh-CN';
    }
    default:
      return null;
  }
}

/** The environment variables a locale is read from (process.env fits). */
export type LocaleEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The language the system asks for. POSIX: the first of LC_ALL, LC_MESSAGES and LANG that is
 * set (and not empty) is the messages' locale. GNU: unless that locale is C/POSIX (or none is
 * set), LANGUAGE lists languages in order of preference, and the first with a catalog wins.
 * English when neither names a language with a catalog.
 */
export function systemLanguage(env: LocaleEnvironment): Language {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v !== '');
  if (locale === undefined) return 'en';
  const name = locale.split('.')[0]!;
  if (name === 'C' || name === 'POSIX') return 'en';
  for (const entry of (env.LANGUAGE ?? '').split(':')) {
    const language = languageOfLocale(entry);
    if (language) return language;
  }
  return languageOfLocale(locale) ?? 'en';
}

/** The language a browser asks for (navigator.languages, most wanted first), or English. */
export function browserLanguage(languages: readonly string[]): Language {
  for (const tag of languages) {
    const language = languageOfLocale(tag);
    if (language) return language;
  }
  return 'en';
}

/** The way a language's text runs: Persian right to left, the others left to right. */
export function textDirection(language: Language): 'ltr' | 'rtl' {
  return language === 'fa' ? 'rtl' : 'ltr';
}
