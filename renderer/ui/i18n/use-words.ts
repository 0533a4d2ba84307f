// The words of the app's language for a screen: the typed translator (a misspelt key does not
// compile), the language and its direction. Re-renders when the language changes.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isLanguage, textDirection, type Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';

export interface Words {
  t: Translate;
  language: Language;
  dir: 'ltr' | 'rtl';
}

export function useWords(): Words {
  const { t, i18n } = useTranslation();
  const language = isLanguage(i18n.language) ? i18n.language : 'en';
  return useMemo(
    () => ({
      t: ((key, values) => t(key, values ?? {}) as string) as Translate,
      language,
      dir: textDirection(language),
    }),
    [t, language],
  );
}
