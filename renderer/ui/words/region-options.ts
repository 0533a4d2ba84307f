// The region picker's options: automatic, each region with its latency and load (those the
// plan leaves out shown but not choosable), the user's rules, and whatever the setting holds.
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { Regions } from '../../store/engine-store.js';
import { latencyWords } from './connection-words.js';
import { english } from './english.js';

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

function strategyWords(strategy: string, t: Translate): string {
  switch (strategy) {
    case 'lowest-latency':
    case 'least-load':
    case 'fallback':
      return t(`app.regions.strategies.${strategy}`);
    default:
      return strategy;
  }
}

export function regionOptions(
  regions: Regions | null,
  current: string | null,
  t: Translate = english,
): RegionGroups {
  const list = regions?.regions ?? [];
  const rules = regions?.rules ?? [];
  const regionOpts = list.map((r) => {
    const facts = [
      latencyWords(r.latency, t) ?? t('app.regions.notMeasured'),
      t('app.regions.load', { load: r.load }),
      ...(r.allowed ? [] : [t('app.regions.notInPlan')]),
    ];
    return {
      value: r.id,
      label: t('app.regions.label', { name: r.name, facts: facts.join(t('app.comma')) }),
      disabled: !r.allowed,
    };
  });
  const ruleOpts = rules.map((r) => ({
    value: r.name,
    label: t('app.regions.ruleLabel', {
      name: r.name,
      strategy: strategyWords(r.strategy, t),
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
    auto: { value: 'auto', label: t('app.regions.auto'), disabled: false },
    regions: regionOpts,
    rules: ruleOpts,
    other:
      current && !known.has(current) ? { value: current, label: current, disabled: false } : null,
  };
}

/** A region's name for an id, or the id itself. */
export function regionName(regions: Regions | null, id: string | null): string | null {
  if (!id) return null;
  return regions?.regions.find((r) => r.id === id)?.name ?? id;
}
