// Which language a locale, the system's environment or a browser asks for, and which way it runs.
import { describe, expect, it } from 'vitest';
import {
  LANGUAGES,
  LANGUAGE_NAMES,
  browserLanguage,
  isLanguage,
  languageOfLocale,
  systemLanguage,
  textDirection,
} from './languages.js';

describe('languages', () => {
  it('read a POSIX locale or a BCP 47 tag', () => {
    const cases: Array<[string, string | null]> = [
      ['ru_RU.UTF-8', 'ru'],
      ['ru', 'ru'],
      ['en_US.UTF-8', 'en'],
      ['en-US', 'en'],
      ['en_GB.UTF-8@euro', 'en'],
      ['zh_TW.UTF-8', 'zh-TW'],
      ['zh-TW', 'zh-TW'],
      ['zh_HK.UTF-8', 'zh-TW'],
      ['zh_MO', 'zh-TW'],
      ['zh-Hant', 'zh-TW'],
      ['zh_Hant_SG', 'zh-TW'],
      ['zh-Hant-CN', 'zh-TW'],
      ['zh_CN.UTF-8', 'zh-CN'],
      ['zh_SG.GB2312', 'zh-CN'],
      ['zh', 'zh-CN'],
      ['zh-Hans', 'zh-CN'],
      ['zh-Hans-HK', 'zh-CN'],
      ['fa_IR.UTF-8', 'fa'],
      ['fa', 'fa'],
      ['fa-AF', 'fa'],
      ['de_DE.UTF-8', null],
      ['C', null],
      ['C.UTF-8', null],
      ['POSIX', null],
      ['', null],
      ['english', null],
    ];
    for (const [tag, language] of cases) expect(languageOfLocale(tag), tag).toBe(language);
  });

  it('take the system’s from LC_ALL, LC_MESSAGES, then LANG, and GNU’s LANGUAGE list', () => {
    expect(systemLanguage({})).toBe('en');
    expect(systemLanguage({ LANG: 'ru_RU.UTF-8' })).toBe('ru');
    expect(systemLanguage({ LANG: 'ru_RU.UTF-8', LC_MESSAGES: 'zh_TW.UTF-8' })).toBe('zh-TW');
    expect(
      systemLanguage({ LANG: 'ru_RU.UTF-8', LC_MESSAGES: 'zh_TW.UTF-8', LC_ALL: 'fa_IR.UTF-8' }),
    ).toBe('fa');
    // An empty variable is one not set.
    expect(systemLanguage({ LC_ALL: '', LANG: 'zh_CN.UTF-8' })).toBe('zh-CN');
    // The first one set decides, even for a language without a catalog.
    expect(systemLanguage({ LC_ALL: 'de_DE.UTF-8', LANG: 'ru_RU.UTF-8' })).toBe('en');
    expect(systemLanguage({ LC_ALL: 'C', LANG: 'ru_RU.UTF-8' })).toBe('en');
    // LANGUAGE: the first of its list with a catalog, unless the locale is C.
    expect(systemLanguage({ LANG: 'en_US.UTF-8', LANGUAGE: 'de:zh_TW:ru' })).toBe('zh-TW');
    expect(systemLanguage({ LANG: 'fa_IR.UTF-8', LANGUAGE: 'de:fr' })).toBe('fa');
    expect(systemLanguage({ LANG: 'C.UTF-8', LANGUAGE: 'ru' })).toBe('en');
    expect(systemLanguage({ LANGUAGE: 'ru' })).toBe('en');
  });

  it('take the browser’s first with a catalog', () => {
    expect(browserLanguage(['de-DE', 'zh-HK', 'en'])).toBe('zh-TW');
    expect(browserLanguage(['fa'])).toBe('fa');
    expect(browserLanguage(['de', 'fr'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  it('run Persian right to left, the others left to right', () => {
    expect(LANGUAGES.map(textDirection)).toEqual(['ltr', 'ltr', 'ltr', 'ltr', 'rtl']);
  });

  it('name each language in its own words, and know a language code', () => {
    expect(LANGUAGE_NAMES['zh-TW']).toBe('繁體中文');
    expect(LANGUAGE_NAMES.fa).toBe('فارسی');
    expect(isLanguage('zh-CN')).toBe(true);
    expect(isLanguage('zh')).toBe(false);
    expect(isLanguage('toString')).toBe(false);
    expect(isLanguage(undefined)).toBe(false);
  });
});
