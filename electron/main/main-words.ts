// The main process's language: the words it gives people (the tray, the engine's absence) in
// the configured language. The app's locale until the engine's settings are read (the tray
// reads them, and sets the `language` setting's choice here); English before either.
import {
  faceLanguage,
  languageOfLocale,
  translator,
  type ClientConfig,
  type Language,
  type Translate,
} from '../../contracts/index.js';

let language: Language = 'en';

/** The language of the main process's words: the setting, or the app's locale when auto. */
export function mainLanguageOf(
  setting: ClientConfig['language'] | undefined,
  locale: string,
): Language {
  return faceLanguage(setting ?? 'auto', languageOfLocale(locale) ?? 'en');
}

export function setMainLanguage(next: Language): void {
  language = next;
}

export function mainLanguage(): Language {
  return language;
}

/** The translator of the main process's language now. */
export function mainWords(): Translate {
  return translator(language);
}
