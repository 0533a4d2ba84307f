// The split rules on top of the split by country: each rule (a website and its subdomains, or a
// program and what it starts) with its way and a button to remove it, and a form to add one,
// checked before it is sent; a refusal is said beside the field.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { SPLIT_VIAS, type SplitVia } from '../../../contracts/split-rules.js';
import type { SplitRuleKind } from '../../store/engine-store.js';
import { RadioChoices } from '../forms/radio-choices.js';
import { FieldError, useFieldError } from '../forms/field-error.js';
import { useActions, useEngine } from '../store-context.js';
import {
  NO_SPLIT_RULES_WORDS,
  SPLIT_VIA_HINTS,
  SPLIT_VIA_WORDS,
  splitRuleRows,
} from '../words/split-rule-words.js';

const KINDS: readonly {
  value: SplitRuleKind;
  label: string;
  field: string;
  placeholder: string;
  hint: string;
}[] = [
  {
    value: 'domain',
    label: 'A website (domain)',
    field: 'Domain',
    placeholder: 'example.com',
    hint: 'Such as example.com; its subdomains follow the rule too.',
  },
  {
    value: 'app',
    label: 'A program',
    field: 'Program’s path',
    placeholder: '/usr/bin/firefox',
    hint: 'The full path of the program, such as /usr/bin/firefox; what it starts follows the rule too.',
  },
];

export function SplitRules() {
  const rules = useEngine((s) => s.splitRules);
  const busy = useEngine((s) => s.busy.splitRules === true);
  const { loadSplitRules, removeSplitRule } = useActions();
  // Read each time Settings opens: netcli or another window may have changed them.
  useEffect(() => {
    void loadSplitRules();
  }, [loadSplitRules]);
  const rows = rules ? splitRuleRows(rules) : null;

  return (
    <section aria-labelledby="settings-split-rules" className="card">
      <h2 className="card__title" id="settings-split-rules">
        Split rules
      </h2>
      <p className="muted">
        Send a website or a program around the tunnel, or through it only, whatever country it is
        in. These rules come before the split by country.
      </p>
      {rows === null ? (
        <p className="muted">Loading the split rules…</p>
      ) : rows.length === 0 ? (
        <p>{NO_SPLIT_RULES_WORDS}</p>
      ) : (
        <ul className="devices" aria-label="Split rules">
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
                Remove
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
        Add a rule
      </h3>
      <RadioChoices
        id={`${id}-kind`}
        legend="Rule for"
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
        legend="Way"
        choices={SPLIT_VIAS.map((v) => ({
          value: v,
          label: SPLIT_VIA_WORDS[v],
          hint: SPLIT_VIA_HINTS[v],
        }))}
        value={via}
        onChange={setVia}
        error={viaError}
      />

      <button type="submit" className="button button--primary" aria-disabled={props.busy}>
        Add rule
      </button>
    </form>
  );
}
