// A region <select>'s options (the home screen's picker, a new device's region): automatic, each
// region by its place (city and country in the person's language) with its latency and load
// (those the plan leaves out shown but not choosable), the user's rules, and whatever the setting
// holds.
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { Regions } from '../../store/engine-store.js';
import { placeWords } from './place-words.js';
import { latencyText, loadText } from './region-facts.js';

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
