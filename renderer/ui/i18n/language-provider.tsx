// The app's language: the `language` setting, or (auto, and before the configuration is read)
// the one the app's locale asks for (navigator.languages: Electron's app locale, the browser's
// languages in the web graphical mode). One i18next instance for the page, handed to
// react-i18next; the document's lang and dir follow it (Persian mirrors the layout).
import { useLayoutEffect, useState, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { faceLanguage } from '../../../contracts/client-config.js';
import { browserLanguage, textDirection } from '../../../contracts/i18n/languages.js';
import { createI18n } from '../../../contracts/i18n/translator.js';
import { useEngine } from '../store-context.js';

/** The languages this page's locale asks for, most wanted first. */
function localeLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages;
}

export function LanguageProvider(props: { children: ReactNode }) {
  const setting = useEngine((s) => s.config?.language ?? 'auto');
  const language = faceLanguage(setting, browserLanguage(localeLanguages()));
  // Made once, in the language of the first render; a later change switches it in place.
  const [i18n] = useState(() => createI18n(language));
  useLayoutEffect(() => {
    if (i18n.language !== language) void i18n.changeLanguage(language);
    if (typeof document === 'undefined') return;
    document.documentElement.lang = language;
    document.documentElement.dir = textDirection(language);
  }, [i18n, language]);
  return <I18nextProvider i18n={i18n}>{props.children}</I18nextProvider>;
}
