// "Add a phone or tablet": its kind, its name, the region its config points at (this device's
// setting to begin with) and whether it keeps its local network. The engine's refusals are shown
// at their field, the rest above the buttons.
import { useId, useState, type FormEvent } from 'react';
import type { AddDeviceInput } from '../../store/engine-store.js';
import { sentence } from '../../store/error-words.js';
import { RadioChoices } from '../forms/radio-choices.js';
import { FieldError } from '../forms/field-error.js';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { regionGroups } from '../places/region-groups.js';
import { RegionOptions } from '../forms/region-options.js';

type Kind = AddDeviceInput['kind'];

const KINDS: readonly Kind[] = ['phone', 'tablet'];

/** The fields of this form, by the engine's names for them. */
const FIELDS = ['kind', 'name', 'region', 'allow_lan'] as const;

export function AddDeviceForm(props: { onCancel: () => void }) {
  const { t, language } = useWords();
  const id = useId();
  const [kind, setKind] = useState<Kind>('phone');
  const [name, setName] = useState('');
  // Untouched, the region is this device's setting (the engine's default when none is sent).
  const [region, setRegion] = useState<string | null>(null);
  const [allowLan, setAllowLan] = useState(false);
  const regions = useEngine((s) => s.regions);
  const ownRegion = useEngine((s) => s.config?.region ?? null);
  const busy = useEngine((s) => s.busy.addDevice === true);
  const error = useEngine((s) => s.addDeviceError);
  const { addDevice } = useActions();

  const fieldError = (field: (typeof FIELDS)[number]): string | null => {
    const e = error?.errors.find((x) => x.field === field);
    if (!e) return null;
    return (
      sentence(e.message, t) +
      (e.allowed
        ? ` ${t('app.errors.chooseOneOf', { values: e.allowed.join(t('app.comma')) })}`
        : '')
    );
  };
  const nameError = fieldError('name');
  const regionError = fieldError('region');
  const kindError = fieldError('kind');
  const lanError = fieldError('allow_lan');
  // What no field shows: the error's words, or the refusals of fields this form has not.
  const others = error?.errors.filter((e) => !(FIELDS as readonly string[]).includes(e.field));
  const formError = !error
    ? null
    : error.errors.length === 0
      ? error.words
      : others && others.length > 0
        ? others.map((e) => sentence(e.message, t)).join(' ')
        : null;

  const shownRegion = region ?? ownRegion ?? 'auto';
  const groups = regionGroups(regions, shownRegion, t, language);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    void addDevice({
      kind,
      name,
      ...(region === null ? {} : { region }),
      allow_lan: allowLan,
    });
  };

  return (
    <form className="add-device" aria-labelledby={`${id}-title`} onSubmit={submit} noValidate>
      <h3 id={`${id}-title`} className="add-device__title">
        {t('app.addDevice.title')}
      </h3>
      <RadioChoices
        id={`${id}-kind`}
        legend={t('app.addDevice.kind')}
        choices={KINDS.map((value) => ({ value, label: t(`app.addDevice.${value}`) }))}
        value={kind}
        onChange={setKind}
        error={kindError}
      />

      <label htmlFor={`${id}-name`}>{t('app.addDevice.name')}</label>
      <input
        id={`${id}-name`}
        className="text-input"
        type="text"
        autoComplete="off"
        maxLength={64}
        value={name}
        aria-invalid={nameError ? true : undefined}
        aria-describedby={nameError ? `${id}-name-error` : `${id}-name-hint`}
        onChange={(e) => setName(e.target.value)}
      />
      <p id={`${id}-name-hint`} className="hint">
        {t('app.addDevice.nameHint')}
      </p>
      <FieldError id={`${id}-name-error`} message={nameError} />

      <label htmlFor={`${id}-region`}>{t('app.addDevice.region')}</label>
      <select
        id={`${id}-region`}
        className="select"
        value={shownRegion}
        aria-invalid={regionError ? true : undefined}
        aria-describedby={regionError ? `${id}-region-error` : `${id}-region-hint`}
        onChange={(e) => setRegion(e.target.value)}
      >
        <RegionOptions groups={groups} />
      </select>
      <p id={`${id}-region-hint`} className="hint">
        {t('app.addDevice.regionHint')}
      </p>
      <FieldError id={`${id}-region-error`} message={regionError} />

      <div className="setting setting--toggle">
        <input
          id={`${id}-lan`}
          type="checkbox"
          className="checkbox"
          checked={allowLan}
          aria-invalid={lanError ? true : undefined}
          aria-describedby={`${id}-lan-hint${lanError ? ` ${id}-lan-error` : ''}`}
          onChange={(e) => setAllowLan(e.target.checked)}
        />
        <div>
          <label htmlFor={`${id}-lan`} className="setting__label">
            {t('app.addDevice.allowLan')}
          </label>
          <p id={`${id}-lan-hint`} className="hint">
            {t('app.addDevice.lanHint')}
          </p>
          <FieldError id={`${id}-lan-error`} message={lanError} />
        </div>
      </div>

      {formError ? (
        <p role="alert" className="form-error">
          {formError}
        </p>
      ) : null}
      <div className="add-device__actions">
        <button type="submit" className="button button--primary" aria-disabled={busy}>
          {busy ? t('app.addDevice.adding') : t('app.addDevice.add')}
        </button>
        <button
          type="button"
          className="button button--quiet"
          aria-disabled={busy}
          onClick={() => !busy && props.onCancel()}
        >
          {t('app.addDevice.cancel')}
        </button>
      </div>
    </form>
  );
}
