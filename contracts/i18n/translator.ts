// The translator: the words of one language from its catalog, by a key that the English catalog
// types (a misspelt key does not compile). Plurals follow the language's own rules (i18next's
// `_one`/`_few`/`_many`/`_other` keys, chosen by Intl.PluralRules) and `{{count, number}}` /
// `{{when, datetime}}` are formatted by Intl in that language. Every catalog is bundled: there is
// nothing to load, so a translator is ready as soon as it is made.
import i18next, { type i18n, type Resource } from 'i18next';
import en from './catalogs/en.json' with { type: 'json' };
import fa from './catalogs/fa.json' with { type: 'json' };
import ru from './catalogs/ru.json' with { type: 'json' };
import zhCN from './catalogs/zh-CN.json' with { type: 'json' };
import zhTW from './catalogs/zh-TW.json' with { type: 'json' };
import { LANGUAGES, type Language } from './languages.js';

/** A language's catalog: areas (states, notices, ...) of nested keys, words at the leaves. */
export interface Catalog {
  readonly [key: string]: string | Catalog;
}

export const CATALOGS: Readonly<Record<Language, Catalog>> = {
  en,
  'zh-CN': zhCN,
  'zh-TW': zhTW,
  ru,
  fa,
};

/** The suffixes of i18next's plural keys (the CLDR plural categories). */
export const PLURAL_SUFFIXES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
type PluralSuffix = (typeof PLURAL_SUFFIXES)[number];

/** The dotted paths of a catalog's leaves: `states.glance.connected`. */
type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/** A counted key by its base: `counts.problems` for `counts.problems_one`, `_other`, .... */
type PluralBase<K extends string> = K extends `${infer Base}_${PluralSuffix}` ? Base : K;

/** A key of the catalogs (English's, which every other language has too). */
export type CatalogKey = PluralBase<Leaves<typeof en>>;

/**
 * The words of one key. `values` fill its `{{placeholders}}`; `count` picks a counted key's
 * plural form.
 */
export type Translate = (key: CatalogKey, values?: Record<string, unknown>) => string;

const NAMESPACE = 'translation';

function instance(language: Language): i18n {
  const resources: Resource = {};
  for (const l of LANGUAGES) resources[l] = { [NAMESPACE]: CATALOGS[l] };
  const t = i18next.createInstance();
  // Synchronous: with every catalog in resources there is nothing to wait for.
  void t.init({
    resources,
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    // zh-CN is zh-CN: no lookup in a bare `zh` catalog there is none of.
    load: 'currentOnly',
    ns: [NAMESPACE],
    defaultNS: NAMESPACE,
    initAsync: false,
    // The faces escape (React, the terminal's Text) or print as they are.
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
    // Never a line on stdout: netcli's `--json` output is read by programs.
    showSupportNotice: false,
    debug: false,
  });
  return t;
}

const translators = new Map<Language, Translate>();

/** The translator of a language: made once, then the same one. */
export function translator(language: Language): Translate {
  let translate = translators.get(language);
  if (!translate) {
    const t = instance(language);
    translate = (key, values) => t.t(key, values ?? {}) as string;
    translators.set(language, translate);
  }
  return translate;
}
