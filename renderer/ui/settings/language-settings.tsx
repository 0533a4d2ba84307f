// The app's language (each by its own name, or the system's), and the home country whose
// traffic leaves directly (detected, or chosen from every country by its name in the app's
// language). The home screen's "split tunneling is off" notice links to the country's picker.
import { useMemo } from 'react';
import { COUNTRY_CODES } from '../../../contracts/client-config.js';
import { LANGUAGES, LANGUAGE_NAMES } from '../../../contracts/i18n/languages.js';
import { countryName } from '../../../contracts/i18n/places.js';
import { useWords } from '../i18n/use-words.js';
import { SelectSetting } from './select-setting.js';

/** The home-country picker's id: the anchor a notice on Home sends the person to. */
export const HOME_COUNTRY_SETTING_ID = 'setting-home-country';
/** The language picker's id. */
export const LANGUAGE_SETTING_ID = 'setting-language';

export function LanguageSetting() {
  const { t } = useWords();
  return (
    <SelectSetting
      name="language"
      id={LANGUAGE_SETTING_ID}
      label={t('app.settings.language')}
      hideLabel
      hint={t('app.settings.languageHint')}
      choices={[
        { value: 'auto', label: t('app.settings.languageAuto') },
        ...LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l], lang: l })),
      ]}
    />
  );
}

export function HomeCountrySetting() {
  const { t, language } = useWords();
  const countries = useMemo(() => {
    const collator = new Intl.Collator(language);
    return COUNTRY_CODES.map((code) => ({ value: code, label: countryName(code, language) })).sort(
      (a, b) => collator.compare(a.label, b.label),
    );
  }, [language]);
  return (
    <SelectSetting
      name="home_country"
      id={HOME_COUNTRY_SETTING_ID}
      label={t('app.settings.homeCountry')}
      hint={t('app.settings.homeCountryHint')}
      choices={[{ value: 'auto', label: t('app.settings.homeCountryAuto') }, ...countries]}
    />
  );
}
