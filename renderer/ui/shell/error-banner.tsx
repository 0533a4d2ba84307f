// The last error in plain words, with what the person can do about it.
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';

export function ErrorBanner(props: { onSignIn?: (() => void) | undefined }) {
  const { t } = useWords();
  const error = useEngine((s) => s.error);
  const { dismissError } = useActions();
  if (!error) return null;
  return (
    <div className="banner banner--error">
      <p role="alert" className="banner__text">
        {error.words}
      </p>
      <div className="banner__actions">
        {error.action === 'sign-in' && props.onSignIn ? (
          <button type="button" className="button" onClick={props.onSignIn}>
            {t('app.shell.signIn')}
          </button>
        ) : null}
        <button type="button" className="button button--quiet" onClick={dismissError}>
          {t('app.shell.dismiss')}
        </button>
      </div>
    </div>
  );
}
