// Signed out: sign in with an account number, or create a free account.
import { useId, useState, type FormEvent } from 'react';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { FieldError, useFieldError } from '../forms/field-error.js';

export function SignInPanel() {
  const { t } = useWords();
  const id = useId();
  const [number, setNumber] = useState('');
  const [password, setPassword] = useState('');
  const busy = useEngine((s) => s.busy.session === true);
  const { login, createAccount } = useActions();
  const numberError = useFieldError('account_number');
  const passwordError = useFieldError('password');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!busy) void login(number, password || undefined);
  };

  return (
    <div className="sign-in">
      <form aria-labelledby={`${id}-title`} className="card" onSubmit={submit} noValidate>
        <h2 className="card__title" id={`${id}-title`}>
          {t('app.signIn.title')}
        </h2>
        <label htmlFor={`${id}-number`}>{t('app.signIn.number')}</label>
        <input
          id={`${id}-number`}
          className="text-input"
          inputMode="numeric"
          autoComplete="username"
          placeholder="1234 5678 1234 5678"
          dir="ltr"
          value={number}
          aria-invalid={numberError ? true : undefined}
          aria-describedby={numberError ? `${id}-number-error` : undefined}
          onChange={(e) => setNumber(e.target.value)}
        />
        <FieldError id={`${id}-number-error`} message={numberError} />
        <label htmlFor={`${id}-password`}>{t('app.signIn.password')}</label>
        <input
          id={`${id}-password`}
          className="text-input"
          type="password"
          autoComplete="current-password"
          value={password}
          aria-invalid={passwordError ? true : undefined}
          aria-describedby={passwordError ? `${id}-password-error` : undefined}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FieldError id={`${id}-password-error`} message={passwordError} />
        <button type="submit" className="button button--primary" aria-disabled={busy}>
          {busy ? t('app.signIn.signingIn') : t('app.signIn.signIn')}
        </button>
      </form>
      <section aria-labelledby={`${id}-new`} className="card">
        <h2 className="card__title" id={`${id}-new`}>
          {t('app.signIn.newTitle')}
        </h2>
        <p>{t('app.signIn.newText')}</p>
        <button
          type="button"
          className="button"
          aria-disabled={busy}
          onClick={() => !busy && void createAccount()}
        >
          {t('app.signIn.create')}
        </button>
      </section>
    </div>
  );
}
