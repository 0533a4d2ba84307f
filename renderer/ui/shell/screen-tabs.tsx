// The screens as a tab list (WAI-ARIA tabs): Tab reaches the selected tab, arrow keys, Home
// and End move between tabs and show each at once.
import { useRef, type KeyboardEvent } from 'react';
import { useWords } from '../i18n/use-words.js';
import { SCREENS, screenTitle, type Screen } from './use-screen.js';

export const tabId = (s: Screen) => `tab-${s}`;
export const panelId = (s: Screen) => `panel-${s}`;

export function ScreenTabs(props: { current: Screen; onSelect: (s: Screen) => void }) {
  const { t, dir } = useWords();
  // Right to left (Persian) the tabs run the other way, and so do the arrow keys.
  const ahead = dir === 'rtl' ? -1 : 1;
  const refs = useRef<Partial<Record<Screen, HTMLButtonElement | null>>>({});

  const move = (to: number) => {
    const next = SCREENS[(to + SCREENS.length) % SCREENS.length]!;
    props.onSelect(next);
    refs.current[next]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    const at = SCREENS.indexOf(props.current);
    const keys: Record<string, number> = {
      ArrowRight: at + ahead,
      ArrowLeft: at - ahead,
      Home: 0,
      End: SCREENS.length - 1,
    };
    const to = keys[e.key];
    if (to === undefined) return;
    e.preventDefault();
    move(to);
  };

  return (
    <div role="tablist" aria-label={t('app.shell.screensLabel')} className="tabs">
      {SCREENS.map((s) => (
        <button
          key={s}
          ref={(el) => {
            refs.current[s] = el;
          }}
          type="button"
          role="tab"
          id={tabId(s)}
          aria-selected={s === props.current}
          aria-controls={panelId(s)}
          tabIndex={s === props.current ? 0 : -1}
          className="tab"
          onClick={() => props.onSelect(s)}
          onKeyDown={onKeyDown}
        >
          {screenTitle(s, t)}
        </button>
      ))}
    </div>
  );
}
