// DNS: the node's resolver through the tunnel (auto), or a server of the person's choosing,
// checked as an IPv4 or IPv6 address before it is sent.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useActions } from '../store-context.js';
import { useSetting } from './use-setting.js';
import { FieldError, useFieldError } from '../forms/field-error.js';
import { useWords } from '../i18n/use-words.js';

export function DnsSetting() {
  const { t } = useWords();
  const id = useId();
  const dns = useSetting('dns');
  const { setDns } = useActions();
  const error = useFieldError('dns');
  const isAuto = dns === undefined || dns === 'auto';
  // What the person is typing, and whether they picked "custom" before saving one: form state.
  const [custom, setCustom] = useState(!isAuto);
  const [text, setText] = useState(isAuto ? '' : dns);
  useEffect(() => {
    setCustom(!isAuto);
    if (!isAuto && dns) setText(dns);
  }, [dns, isAuto]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void setDns(text);
  };

  return (
    <fieldset className="setting setting--choice">
      <legend className="setting__label">{t('app.settings.dns')}</legend>
      <div className="choice">
        <input
          id={`${id}-auto`}
          type="radio"
          name={`${id}-dns`}
          checked={!custom}
          onChange={() => {
            setCustom(false);
            void setDns('auto');
          }}
        />
        <label htmlFor={`${id}-auto`}>{t('app.settings.automatic')}</label>
        <p className="hint">{t('app.settings.dnsAutoHint')}</p>
      </div>
      <div className="choice">
        <input
          id={`${id}-custom`}
          type="radio"
          name={`${id}-dns`}
          checked={custom}
          onChange={() => setCustom(true)}
        />
        <label htmlFor={`${id}-custom`}>{t('app.settings.custom')}</label>
      </div>
      {custom ? (
        <form className="inline-form" onSubmit={submit} noValidate>
          <label htmlFor={`${id}-server`}>{t('app.settings.dnsServer')}</label>
          <input
            id={`${id}-server`}
            className="text-input"
            type="text"
            inputMode="text"
            autoComplete="off"
            spellCheck={false}
            placeholder="9.9.9.9"
            value={text}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : `${id}-hint`}
            onChange={(e) => setText(e.target.value)}
          />
          <button type="submit" className="button">
            {t('app.settings.saveDns')}
          </button>
          <p id={`${id}-hint`} className="hint">
            {t('app.settings.dnsHint')}
          </p>
          <FieldError id={`${id}-error`} message={error} />
        </form>
      ) : null}
    </fieldset>
  );
}
