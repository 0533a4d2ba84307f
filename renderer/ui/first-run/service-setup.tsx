// First run: where Ferry's service is (the control plane's address).
import { useId, useState, type FormEvent } from 'react';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { FieldError, useFieldError } from '../forms/field-error.js';

export function ServiceSetup() {
  const { t } = useWords();
  const id = useId();
  const [url, setUrl] = useState('');
  const busy = useEngine((s) => s.busy.session === true);
  const { init } = useActions();
  // The request's own field, or the setting it would change (plain http is refused as `service`).
  const endpointError = useFieldError('endpoint');
  const serviceError = useFieldError('service');
  const error = endpointError ?? serviceError;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!busy) void init(url);
  };
  return (
    <form aria-labelledby={`${id}-title`} className="card" onSubmit={submit} noValidate>
      <h2 className="card__title" id={`${id}-title`}>
        {t('app.firstRun.serviceTitle')}
      </h2>
      <p>{t('app.firstRun.serviceIntro')}</p>
      <label htmlFor={`${id}-url`}>{t('app.firstRun.serviceLabel')}</label>
      <input
        id={`${id}-url`}
        className="text-input"
        type="url"
        inputMode="url"
        autoComplete="url"
        placeholder="https://ferry.example"
        dir="ltr"
        value={url}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => setUrl(e.target.value)}
      />
      <FieldError id={`${id}-error`} message={error} />
      <button type="submit" className="button button--primary" aria-disabled={busy}>
        {t('app.firstRun.continue')}
      </button>
    </form>
  );
}
