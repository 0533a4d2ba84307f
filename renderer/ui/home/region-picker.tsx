// Where to connect: the engine's region setting. Choosing another saves it; a live tunnel
// follows it (the engine reconnects). Beside it, a latency check of every region the plan
// allows: the options then show each one's latency. Each region is named by its city and
// country in the person's language.
import { useId } from 'react';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';
import { RegionOptions } from '../forms/region-options.js';
import { regionGroups } from '../places/region-groups.js';
import { useSetting } from '../settings/use-setting.js';
import { useActions, useEngine } from '../store-context.js';

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
          <RegionOptions groups={groups} />
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
