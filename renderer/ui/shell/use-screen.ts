// Which screen is shown, kept in the address's fragment so that reloading keeps it (and the
// back button works in the web graphical mode). UI state only: nothing of the engine's.
import { useCallback, useEffect, useState } from 'react';
import type { Translate } from '../../../contracts/i18n/translator.js';

export const SCREENS = ['home', 'settings', 'account', 'diagnostics'] as const;
export type Screen = (typeof SCREENS)[number];

/** A screen's name, as its tab says it. */
export function screenTitle(screen: Screen, t: Translate): string {
  return t(`app.shell.screens.${screen}`);
}

function fromHash(hash: string): Screen {
  const name = hash.replace(/^#/, '');
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'home';
}

export function useScreen(): [Screen, (s: Screen) => void] {
  const [screen, setScreen] = useState<Screen>(() =>
    // Rendered outside a browser (a unit test's markup): the first screen.
    typeof window === 'undefined' ? 'home' : fromHash(window.location.hash),
  );
  useEffect(() => {
    const follow = () => setScreen(fromHash(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const go = useCallback((s: Screen) => {
    setScreen(s);
    if (fromHash(window.location.hash) !== s) window.location.hash = s;
  }, []);
  return [screen, go];
}
