// Every region as a place to pick: its flag, city and country, latency and load, with a search
// box above that narrows the list by city, country (in the person's language or English) or id.
// Plain buttons in a list (Tab, Enter; the arrow keys move between them too); the chosen one is
// pressed. Choosing one saves the region, and a live tunnel follows it, as the picker does.
import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Regions } from '../../store/engine-store.js';
import { useWords } from '../i18n/use-words.js';
import { useSetting } from '../settings/use-setting.js';
import { useActions, useEngine } from '../store-context.js';
import { PlaceName } from './flag.js';
import { placeWords } from './place-words.js';
import { latencyText, loadText } from './region-facts.js';
import { searchRegions } from './region-search.js';

type Region = NonNullable<Regions>['regions'][number];

const NO_REGIONS: readonly Region[] = [];

/** Up and down (and Home, End) move the focus between the list's buttons. */
function moveFocus(e: KeyboardEvent<HTMLUListElement>) {
  const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  let next: number;
  if (e.key === 'Home') next = 0;
  else if (e.key === 'End') next = buttons.length - 1;
  else if (e.key === 'ArrowDown') next = Math.min(at + 1, buttons.length - 1);
  else if (e.key === 'ArrowUp') next = Math.max(at - 1, 0);
  else return;
  e.preventDefault();
  buttons[next]?.focus();
}

export function RegionList() {
  const id = useId();
  const { t, language } = useWords();
  const regions = useEngine((s) => s.regions?.regions ?? NO_REGIONS);
  const loading = useEngine((s) => s.regions === null);
  const current = useSetting('region') ?? 'auto';
  const saving = useEngine((s) => s.busy.config === true);
  const { chooseRegion } = useActions();
  const [query, setQuery] = useState('');
  const list = useRef<HTMLUListElement>(null);
  const found = useMemo(() => searchRegions(regions, query, language), [regions, query, language]);
  return (
    <section aria-label={t('home.places.label')} className="card places">
      <h2 className="card__title">{t('home.places.title')}</h2>
      <label htmlFor={`${id}-search`} className="visually-hidden">
        {t('home.places.searchLabel')}
      </label>
      <input
        id={`${id}-search`}
        className="text-input places__search"
        type="search"
        value={query}
        placeholder={t('home.places.searchPlaceholder')}
        aria-controls={`${id}-list`}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            list.current?.querySelector<HTMLButtonElement>('button')?.focus();
          }
        }}
      />
      {loading ? <p className="hint">{t('home.regions.loading')}</p> : null}
      <ul
        id={`${id}-list`}
        ref={list}
        className="places__list"
        aria-label={t('home.places.listLabel')}
        aria-busy={saving}
        onKeyDown={moveFocus}
      >
        {query.trim() === '' ? (
          <li>
            <button
              type="button"
              className="place-row"
              aria-pressed={current === 'auto'}
              onClick={() => current !== 'auto' && void chooseRegion('auto')}
            >
              <span className="place">
                <span className="place__name">{t('home.regions.auto')}</span>
              </span>
            </button>
          </li>
        ) : null}
        {found.map((r) => {
          const place = placeWords(r, language);
          const latency = latencyText(r.latency, t, language);
          return (
            <li key={r.id}>
              <button
                type="button"
                className="place-row"
                aria-pressed={current === r.id}
                aria-disabled={!r.allowed}
                data-region={r.id}
                onClick={() => r.allowed && current !== r.id && void chooseRegion(r.id)}
              >
                <PlaceName code={place.code} label={place.label} />
                <span className="place-row__facts">
                  <span className="place-row__latency">
                    {latency ?? t('home.regions.notMeasured')}
                  </span>
                  <span className="place-row__load">
                    {t('home.regions.load', { load: loadText(r.load, language) })}
                  </span>
                  {r.allowed ? null : (
                    <span className="place-row__plan">{t('home.regions.notInPlan')}</span>
                  )}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {!loading && found.length === 0 ? (
        <p className="hint" role="status">
          {t('home.places.none', { query: query.trim() })}
        </p>
      ) : null}
    </section>
  );
}
