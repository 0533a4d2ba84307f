// The split rules on top of the split by country: each rule (a website and its subdomains, or a
// program and what it starts) with its way and a button to remove it, and a form to add one,
// checked before it is sent; a refusal is said beside the field.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Translate } from '../../../contracts/i18n/translator.js';
import { SPLIT_VIAS, type SplitVia } from '../../../contracts/split-rules.js';
import type { SplitRuleKind } from '../../store/engine-store.js';
import { RadioChoices } from '../forms/radio-choices.js';
import { FieldError, useFieldError } from '../forms/field-error.js';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { splitRuleRows, splitViaHint, splitViaWords } from '../words/split-rule-words.js';

/** Each kind of rule: its choice, its field's name and hint, and an example as placeholder. */
function kinds(t: Translate): readonly {
  value: SplitRuleKind;
  label: string;
  field: string;
  placeholder: string;
  hint: string;
}[] {
  return [
    {
      value: 'domain',
      label: t('app.splitRules.domainLabel'),
      field: t('app.splitRules.domainField'),
      placeholder: 'example.com',
      hint: t('app.splitRules.domainHint'),
    },
    {
      value: 'app',
      label: t('app.splitRules.appLabel'),
      field: t('app.splitRules.appField'),
      placeholder: '/usr/bin/firefox',
      hint: t('app.splitRules.appHint'),
    },
  ];
}

export function SplitRules() {
  const { t } = useWords();
  const rules = useEngine((s) => s.splitRules);
  const busy = useEngine((s) => s.busy.splitRules === true);
  const { loadSplitRules, removeSplitRule } = useActions();
  // Read each time Settings opens: netcli or another window may have changed them.
  useEffect(() => {
    void loadSplitRules();
  }, [loadSplitRules]);
  const rows = rules ? splitRuleRows(rules, t) : null;

  return (
    <section aria-labelledby="settings-split-rules" className="card">
      <h2 className="card__title" id="settings-split-rules">
        {t('app.splitRules.title')}
      </h2>
      <p className="muted">{t('app.splitRules.intro')}</p>
      {rows === null ? (
        <p className="muted">{t('app.splitRules.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('app.splitRules.none')}</p>
      ) : (
        <ul className="devices" aria-label={t('app.splitRules.title')}>
          {rows.map((r) => (
            <li key={r.key} className="device">
              <div className="split-rule">
                <strong className="split-rule__target">{r.title}</strong>
                <br />
                <span className="muted">{r.detail}</span>
              </div>
              <button
                type="button"
                className="button button--quiet"
                aria-label={r.removeLabel}
                aria-disabled={busy}
                onClick={() => {
                  if (!busy) void removeSplitRule(r.rule);
                }}
              >
                {t('app.splitRules.remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <AddSplitRuleForm busy={busy} />
    </section>
  );
}

function AddSplitRuleForm(props: { busy: boolean }) {
  const { t } = useWords();
  const KINDS = kinds(t);
  const id = useId();
  const [kind, setKind] = useState<SplitRuleKind>('domain');
  const [via, setVia] = useState<SplitVia>('direct');
  const [text, setText] = useState('');
  const { addSplitRule } = useActions();
  const error = useFieldError(kind);
  const viaError = useFieldError('via');
  const shown = KINDS.find((k) => k.value === kind)!;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (props.busy) return;
    if (await addSplitRule(kind, text, via)) setText('');
  };

  return (
    <form
      className="split-rules__form"
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      <h3 id={`${id}-title`} className="split-rules__title">
        {t('app.splitRules.addTitle')}
      </h3>
      <RadioChoices
        id={`${id}-kind`}
        legend={t('app.splitRules.ruleFor')}
        choices={KINDS.map(({ value, label }) => ({ value, label }))}
        value={kind}
        onChange={setKind}
      />

      <label htmlFor={`${id}-text`}>{shown.field}</label>
      <input
        id={`${id}-text`}
        className="text-input"
        type="text"
        inputMode={kind === 'domain' ? 'url' : 'text'}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        placeholder={shown.placeholder}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : `${id}-hint`}
        onChange={(e) => setText(e.target.value)}
      />
      <p id={`${id}-hint`} className="hint">
        {shown.hint}
      </p>
      <FieldError id={`${id}-error`} message={error} />

      <RadioChoices
        id={`${id}-via`}
        className="split-rules__way"
        legend={t('app.splitRules.way')}
        choices={SPLIT_VIAS.map((v) => ({
          value: v,
          label: splitViaWords(v, t),
          hint: splitViaHint(v, t),
        }))}
        value={via}
        onChange={setVia}
        error={viaError}
      />

      <button type="submit" className="button button--primary" aria-disabled={props.busy}>
        {t('app.splitRules.add')}
      </button>
    </form>
  );
}
