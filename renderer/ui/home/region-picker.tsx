// Where to connect: the engine's region setting. Choosing another saves it; a live tunnel
// follows it (the engine reconnects). Beside it, a latency check of every region the plan
// allows: the options then show each one's latency. Each region is named by its city and
// country in the person's language.
import { useId } from 'react';
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { Regions } from '../../store/engine-store.js';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';
import { placeWords } from '../places/place-words.js';
import { latencyText, loadText } from '../places/region-facts.js';
import { useSetting } from '../settings/use-setting.js';
import { useActions, useEngine } from '../store-context.js';

export interface RegionOption {
  value: string;
  label: string;
  disabled: boolean;
}

export interface RegionGroups {
  auto: RegionOption;
  regions: RegionOption[];
  rules: RegionOption[];
  /** The current setting when it is none of the above (an `<area>:<strategy>`, say). */
  other: RegionOption | null;
}

const STRATEGIES = ['lowest-latency', 'least-load', 'fallback'] as const;

/** The picker's options: automatic, each region with its latency and load, the user's rules. */
export function regionGroups(
  regions: Regions | null,
  current: string | null,
  t: Translate,
  language: Language,
): RegionGroups {
  const regionOpts = (regions?.regions ?? []).map((r) => {
    const facts = [
      latencyText(r.latency, t, language) ?? t('home.regions.notMeasured'),
      t('home.regions.load', { load: loadText(r.load, language) }),
      ...(r.allowed ? [] : [t('home.regions.notInPlan')]),
    ];
    return {
      value: r.id,
      label: t('home.regions.option', {
        place: placeWords(r, language).label,
        facts: facts.join(t('home.regions.factSeparator')),
      }),
      disabled: !r.allowed,
    };
  });
  const ruleOpts = (regions?.rules ?? []).map((r) => ({
    value: r.name,
    label: t('home.regions.rule', {
      name: r.name,
      strategy: (STRATEGIES as readonly string[]).includes(r.strategy)
        ? t(`home.regions.strategies.${r.strategy as (typeof STRATEGIES)[number]}`)
        : r.strategy,
      area: r.area,
    }),
    disabled: false,
  }));
  const known = new Set([
    'auto',
    ...regionOpts.map((o) => o.value),
    ...ruleOpts.map((o) => o.value),
  ]);
  return {
    auto: { value: 'auto', label: t('home.regions.auto'), disabled: false },
    regions: regionOpts,
    rules: ruleOpts,
    other:
      current && !known.has(current) ? { value: current, label: current, disabled: false } : null,
  };
}

function Option(props: { option: RegionOption }) {
  return (
    <option value={props.option.value} disabled={props.option.disabled}>
      {props.option.label}
    </option>
  );
}

export function RegionPicker() {
  const id = useId();
  const { t, language } = useWords();
  const regions = useEngine((s) => s.regions);
  const current = useSetting('region') ?? null;
  const saving = useEngine((s) => s.busy.config === true);
  const { chooseRegion } = useActions();
  const groups = regionGroups(regions, current, t, language);
  return (
    <div className="region">
      <label htmlFor={id}>{t('home.regions.label')}</label>
      <div className="region__row">
        <select
          id={id}
          className="select"
          value={current ?? 'auto'}
          aria-busy={saving}
          aria-describedby={regions === null ? `${id}-loading` : undefined}
          onChange={(e) => void chooseRegion(e.target.value)}
        >
          <Option option={groups.auto} />
          {groups.other ? <Option option={groups.other} /> : null}
          {groups.regions.length > 0 ? (
            <optgroup label={t('home.regions.regionsGroup')}>
              {groups.regions.map((o) => (
                <Option key={o.value} option={o} />
              ))}
            </optgroup>
          ) : null}
          {groups.rules.length > 0 ? (
            <optgroup label={t('home.regions.rulesGroup')}>
              {groups.rules.map((o) => (
                <Option key={o.value} option={o} />
              ))}
            </optgroup>
          ) : null}
        </select>
        <MeasureLatencyButton />
      </div>
      {regions === null ? (
        <p id={`${id}-loading`} className="hint">
          {t('home.regions.loading')}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Probes every region's servers (a few seconds). Stays focusable while it runs (aria-disabled,
 * not disabled): the keyboard keeps its place, and a second press does nothing.
 */
function MeasureLatencyButton() {
  const { t } = useWords();
  const measuring = useEngine((s) => s.busy.latencyCheck === true);
  const note = useEngine((s) => s.latencyNote);
  const { measureLatencies } = useActions();
  return (
    <>
      <button
        type="button"
        className="button button--quiet"
        aria-busy={measuring}
        aria-disabled={measuring}
        aria-label={t('home.regions.measureAll')}
        onClick={() => !measuring && void measureLatencies()}
      >
        {t('home.regions.measure')}
      </button>
      {/* Announced, but not a role="status": the connection state is this card's status. */}
      <span aria-live="polite" className="hint region__progress">
        {measuring ? t('home.regions.measuring') : note ? sentence(note) : ''}
      </span>
    </>
  );
}
