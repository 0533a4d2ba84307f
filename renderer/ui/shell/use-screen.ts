// Which screen is shown, kept in the address's fragment so that reloading keeps it (and the
// back button works in the web graphical mode). UI state only: nothing of the engine's.
import { useCallback, useEffect, useState } from 'react';

export const SCREENS = ['home', 'settings', 'account', 'diagnostics'] as const;
export type Screen = (typeof SCREENS)[number];

export const SCREEN_TITLES: Readonly<Record<Screen, string>> = {
  home: 'Home',
  settings: 'Settings',
  account: 'Account',
  diagnostics: 'Diagnostics',
};

function fromHash(hash: string): Screen {
  const name = hash.replace(/^#/, '');
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'home';
}

export function useScreen(): [Screen, (s: Screen) => void] {
  const [screen, setScreen] = useState<Screen>(() => fromHash(window.location.hash));
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
