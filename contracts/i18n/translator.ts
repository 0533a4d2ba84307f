// The translator: the words of one language from its catalog, by a key that the English catalog
// types (a misspelt key does not compile). Plurals follow the language's own rules (i18next's
// `_one`/`_few`/`_many`/`_other` keys, chosen by Intl.PluralRules) and `{{count, number}}` /
// `{{when, datetime}}` are formatted by Intl in that language. Every catalog is bundled: there is
// nothing to load, so a translator is ready as soon as it is made.
import i18next, { type i18n, type Resource } from 'i18next';
import sharedEn from './catalogs/shared/en.json' with { type: 'json' };
import sharedFa from './catalogs/shared/fa.json' with { type: 'json' };
import sharedRu from './catalogs/shared/ru.json' with { type: 'json' };
import sharedZhCN from './catalogs/shared/zh-CN.json' with { type: 'json' };
import sharedZhTW from './catalogs/shared/zh-TW.json' with { type: 'json' };
import appEn from './catalogs/app/en.json' with { type: 'json' };
import appFa from './catalogs/app/fa.json' with { type: 'json' };
import appRu from './catalogs/app/ru.json' with { type: 'json' };
import appZhCN from './catalogs/app/zh-CN.json' with { type: 'json' };
import appZhTW from './catalogs/app/zh-TW.json' with { type: 'json' };
import homeEn from './catalogs/home/en.json' with { type: 'json' };
import homeFa from './catalogs/home/fa.json' with { type: 'json' };
import homeRu from './catalogs/home/ru.json' with { type: 'json' };
import homeZhCN from './catalogs/home/zh-CN.json' with { type: 'json' };
import homeZhTW from './catalogs/home/zh-TW.json' with { type: 'json' };
import netcliEn from './catalogs/netcli/en.json' with { type: 'json' };
import netcliFa from './catalogs/netcli/fa.json' with { type: 'json' };
import netcliRu from './catalogs/netcli/ru.json' with { type: 'json' };
import netcliZhCN from './catalogs/netcli/zh-CN.json' with { type: 'json' };
import netcliZhTW from './catalogs/netcli/zh-TW.json' with { type: 'json' };
import tuiEn from './catalogs/tui/en.json' with { type: 'json' };
import tuiFa from './catalogs/tui/fa.json' with { type: 'json' };
import tuiRu from './catalogs/tui/ru.json' with { type: 'json' };
import tuiZhCN from './catalogs/tui/zh-CN.json' with { type: 'json' };
import tuiZhTW from './catalogs/tui/zh-TW.json' with { type: 'json' };
import outputEn from './catalogs/output/en.json' with { type: 'json' };
import outputFa from './catalogs/output/fa.json' with { type: 'json' };
import outputRu from './catalogs/output/ru.json' with { type: 'json' };
import outputZhCN from './catalogs/output/zh-CN.json' with { type: 'json' };
import outputZhTW from './catalogs/output/zh-TW.json' with { type: 'json' };
import diagnoseEn from './catalogs/diagnose/en.json' with { type: 'json' };
import diagnoseFa from './catalogs/diagnose/fa.json' with { type: 'json' };
import diagnoseRu from './catalogs/diagnose/ru.json' with { type: 'json' };
import diagnoseZhCN from './catalogs/diagnose/zh-CN.json' with { type: 'json' };
import diagnoseZhTW from './catalogs/diagnose/zh-TW.json' with { type: 'json' };
import { LANGUAGES, type Language } from './languages.js';

/** A language's catalog: areas (states, notices, ...) of nested keys, words at the leaves. */
export interface Catalog {
  readonly [key: string]: string | Catalog;
}

/**
 * One language's words: the words all faces share at the top (states, notices, ...), the
 * diagnostics checks' findings under `diagnose` (every face shows them), and each face's own
 * under its name (`app`; `home`: the app's home screen, map, places and tray; `netcli`: its
 * commands and help; `output`: its reports and errors; `tui`). Each area is a file of its own per
 * language (catalogs/<area>/<language>.json).
 */
function catalog<S, D, A, H, N, O, T>(
  shared: S,
  diagnose: D,
  app: A,
  home: H,
  netcli: N,
  output: O,
  tui: T,
) {
  return { ...shared, diagnose, app, home, netcli, output, tui };
}

const EN = catalog(sharedEn, diagnoseEn, appEn, homeEn, netcliEn, outputEn, tuiEn);

export const CATALOGS: Readonly<Record<Language, Catalog>> = {
  en: EN,
  'zh-CN': catalog(sharedZhCN, diagnoseZhCN, appZhCN, homeZhCN, netcliZhCN, outputZhCN, tuiZhCN),
  'zh-TW': catalog(sharedZhTW, diagnoseZhTW, appZhTW, homeZhTW, netcliZhTW, outputZhTW, tuiZhTW),
  ru: catalog(sharedRu, diagnoseRu, appRu, homeRu, netcliRu, outputRu, tuiRu),
  fa: catalog(sharedFa, diagnoseFa, appFa, homeFa, netcliFa, outputFa, tuiFa),
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
export type CatalogKey = PluralBase<Leaves<typeof EN>>;

/**
 * The words of one key. `values` fill its `{{placeholders}}`; `count` picks a counted key's
 * plural form.
 */
export type Translate = (key: CatalogKey, values?: Record<string, unknown>) => string;

const NAMESPACE = 'translation';

/**
 * An i18next instance over every catalog, speaking `language` (the app's renderer hands it to
 * react-i18next and switches it with `changeLanguage`).
 */
export function createI18n(language: Language): i18n {
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
    const t = createI18n(language);
    translate = (key, values) => t.t(key, values ?? {}) as string;
    translators.set(language, translate);
  }
  return translate;
}
