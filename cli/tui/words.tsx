// The terminal UI's words for its parts: the language's translator handed down by a React
// context (English until the screen provides one), so that a change of the `language` setting
// draws every part again in the new language.
import { createContext, useContext, type ReactNode } from 'react';
import { wordsOf, type TuiWords } from './language.js';

const WordsContext = createContext<TuiWords>(wordsOf('en'));

export function WordsProvider({ words, children }: { words: TuiWords; children: ReactNode }) {
  return <WordsContext.Provider value={words}>{children}</WordsContext.Provider>;
}

/** The words of the UI's language now. */
export function useWords(): TuiWords {
  return useContext(WordsContext);
}
