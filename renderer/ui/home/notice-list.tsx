// What the engine and the service want the person to know about this connection: failover,
// a cipher substituted, the data cap; each in the person's language. A notice whose fix is a
// setting offers a button to it (never a command to type): the home country unknown → Settings,
// at the home-country picker.
import { useMemo } from 'react';
import { mergeNotices } from '../../store/notices.js';
import { sentence } from '../../store/error-words.js';
import { noticeText, noticeTitle } from '../../../contracts/words/notices.js';
import { useWords } from '../i18n/use-words.js';
import { useScreen } from '../shell/use-screen.js';
import { useEngine } from '../store-context.js';

/** The id of the Settings screen's home-country picker (the Settings screen's own). */
export const HOME_COUNTRY_SETTING_ID = 'setting-home-country';

/** The setting each notice's fix is, by the notice's code. */
const FIXES: Readonly<Record<string, string>> = {
  'split-unavailable': HOME_COUNTRY_SETTING_ID,
};

/** Focuses (and scrolls to) an element once it is on the page: the screen shown next renders it. */
export function focusWhenShown(id: string, tries = 60): void {
  const element = document.getElementById(id);
  if (element) {
    element.scrollIntoView?.({ block: 'center' });
    element.focus();
    return;
  }
  if (tries > 0) window.setTimeout(() => focusWhenShown(id, tries - 1), 50);
}

export function NoticeList() {
  const { t } = useWords();
  const own = useEngine((s) => s.status?.notices);
  const announced = useEngine((s) => s.notices);
  const notices = useMemo(() => mergeNotices(own ?? [], announced), [own, announced]);
  const [, go] = useScreen();
  if (notices.length === 0) return null;
  const fix = (setting: string) => {
    go('settings');
    focusWhenShown(setting);
  };
  return (
    <section aria-label={t('home.notices.label')} className="card notices">
      <h2 className="card__title">{t('home.notices.title')}</h2>
      <ul className="notices__list">
        {notices.map((n) => {
          const setting = Object.hasOwn(FIXES, n.code) ? FIXES[n.code] : undefined;
          return (
            <li key={`${n.code}:${n.message}`} className="notice">
              <strong className="notice__title">{noticeTitle(n.code, t)}</strong>
              <span className="notice__message">{sentence(noticeText(n, t))}</span>
              {setting ? (
                <button
                  type="button"
                  className="button button--quiet notice__fix"
                  onClick={() => fix(setting)}
                >
                  {t('home.notices.chooseHomeCountry')}
                </button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
