// Signed out: sign in with an account number, or create a free account.
import { useId, useState, type FormEvent } from 'react';
import { useActions, useEngine } from '../store-context.js';
import { FieldError, useFieldError } from '../forms/field-error.js';

export function SignInPanel() {
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
          Sign in
        </h2>
        <label htmlFor={`${id}-number`}>Account number</label>
        <input
          id={`${id}-number`}
          className="text-input"
          inputMode="numeric"
          autoComplete="username"
          placeholder="1234 5678 1234 5678"
          value={number}
          aria-invalid={numberError ? true : undefined}
          aria-describedby={numberError ? `${id}-number-error` : undefined}
          onChange={(e) => setNumber(e.target.value)}
        />
        <FieldError id={`${id}-number-error`} message={numberError} />
        <label htmlFor={`${id}-password`}>Password (only if you set one)</label>
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
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <section aria-labelledby={`${id}-new`} className="card">
        <h2 className="card__title" id={`${id}-new`}>
          New to Ferry?
        </h2>
        <p>A free account on the Basic plan needs no e-mail address: you get an account number.</p>
        <button
          type="button"
          className="button"
          aria-disabled={busy}
          onClick={() => !busy && void createAccount()}
        >
          Create account
        </button>
      </section>
    </div>
  );
}
