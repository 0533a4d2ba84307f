// The browsers signed in to the web graphical mode (that mode only): each with its times, this
// one marked, and a button to end each; ending this one signs the page out.
import { useEffect } from 'react';
import { ConfirmButton } from '../account/confirm-button.js';
import { useActions, useEngine } from '../store-context.js';
import {
  SESSION_RULE_WORDS,
  browserSessionRows,
  timeOfDay,
  type TimeWords,
} from '../words/browser-session-words.js';

export function BrowserSessions(props: { time?: TimeWords }) {
  const offered = useEngine((s) => s.browserSessionsOffered);
  const sessions = useEngine((s) => s.browserSessions);
  const ending = useEngine((s) => s.busy.browserSessions === true);
  const { loadBrowserSessions, endBrowserSession } = useActions();
  useEffect(() => {
    if (offered) void loadBrowserSessions();
  }, [offered, loadBrowserSessions]);
  if (!offered) return null;
  const rows = sessions ? browserSessionRows(sessions, props.time ?? timeOfDay()) : null;
  return (
    <section aria-labelledby="settings-browsers" className="card">
      <h2 className="card__title" id="settings-browsers">
        Browsers signed in
      </h2>
      <p className="muted">{SESSION_RULE_WORDS}</p>
      {rows === null ? (
        <p className="muted">Loading the browsers…</p>
      ) : (
        <ul className="devices" aria-label="Browsers signed in">
          {rows.map((r) => (
            <li key={r.id} className="device">
              <div>
                <strong>{r.title}</strong>
                <br />
                <span className="muted">{r.detail}</span>
              </div>
              <ConfirmButton
                label={r.endLabel}
                text={r.current ? 'Sign out' : 'End'}
                question={
                  r.current
                    ? 'Sign this browser out? To open Ferry here again, run netcli gui.'
                    : 'End that browser’s session? It is signed out at once.'
                }
                confirmText={r.current ? 'Yes, sign out' : 'Yes, end it'}
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
