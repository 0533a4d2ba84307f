// The browsers signed in to the web graphical mode (that mode only): each with its times, this
// one marked, and a button to end each; ending this one signs the page out.
import { useEffect } from 'react';
import { ConfirmButton } from '../account/confirm-button.js';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import {
  browserSessionRows,
  sessionRuleWords,
  timeOfDay,
  type TimeWords,
} from '../words/browser-session-words.js';

export function BrowserSessions(props: { time?: TimeWords }) {
  const { t, language } = useWords();
  const offered = useEngine((s) => s.browserSessionsOffered);
  const sessions = useEngine((s) => s.browserSessions);
  const ending = useEngine((s) => s.busy.browserSessions === true);
  const { loadBrowserSessions, endBrowserSession } = useActions();
  useEffect(() => {
    if (offered) void loadBrowserSessions();
  }, [offered, loadBrowserSessions]);
  if (!offered) return null;
  const rows = sessions ? browserSessionRows(sessions, props.time ?? timeOfDay(language), t) : null;
  return (
    <section aria-labelledby="settings-browsers" className="card">
      <h2 className="card__title" id="settings-browsers">
        {t('app.browsers.title')}
      </h2>
      <p className="muted">{sessionRuleWords(t)}</p>
      {rows === null ? (
        <p className="muted">{t('app.browsers.loading')}</p>
      ) : (
        <ul className="devices" aria-label={t('app.browsers.title')}>
          {rows.map((r) => (
            <li key={r.id} className="device">
              <div>
                <strong>{r.title}</strong>
                <br />
                <span className="muted">{r.detail}</span>
              </div>
              <ConfirmButton
                label={r.endLabel}
                text={r.current ? t('app.browsers.signOut') : t('app.browsers.end')}
                question={
                  r.current ? t('app.browsers.signOutQuestion') : t('app.browsers.endQuestion')
                }
                confirmText={r.current ? t('app.browsers.signOutYes') : t('app.browsers.endYes')}
                busy={ending}
                onConfirm={() => void endBrowserSession(r.id)}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
