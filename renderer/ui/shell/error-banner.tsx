// The last error in plain words, with what the person can do about it.
import { useActions, useEngine } from '../store-context.js';

export function ErrorBanner(props: { onSignIn?: (() => void) | undefined }) {
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
            Sign in
          </button>
        ) : null}
        <button type="button" className="button button--quiet" onClick={dismissError}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
