// The store's words (an error, a refusal at a field) in the app's language: the `language`
// setting, or (auto, and before the configuration is read) the one this page's locale asks for,
// as the LanguageProvider chooses it.
import { faceLanguage, type ClientConfig } from '../../contracts/client-config.js';
import { browserLanguage } from '../../contracts/i18n/languages.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';

export function storeWords(state: { config: ClientConfig | null }): Translate {
  const locale = typeof navigator === 'undefined' ? [] : navigator.languages;
  return translator(faceLanguage(state.config?.language ?? 'auto', browserLanguage(locale)));
}
