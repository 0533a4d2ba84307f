// The region picker's options: automatic, each region with its latency and load (those the
// plan leaves out shown but not choosable), the user's rules, and whatever the setting holds.
import type { Regions } from '../../store/engine-store.js';

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

const STRATEGY_WORDS: Readonly<Record<string, string>> = {
  'lowest-latency': 'lowest latency',
  'least-load': 'least load',
  fallback: 'fallback',
};

export function regionOptions(regions: Regions | null, current: string | null): RegionGroups {
  const list = regions?.regions ?? [];
  const rules = regions?.rules ?? [];
  const regionOpts = list.map((r) => {
    const facts = [
      r.latency ? r.latency.replace('ms', ' ms') : 'not measured',
      `load ${Math.round(r.load * 100)}%`,
      ...(r.allowed ? [] : ['not in your plan']),
    ];
    return { value: r.id, label: `${r.name} (${facts.join(', ')})`, disabled: !r.allowed };
  });
  const ruleOpts = rules.map((r) => ({
    value: r.name,
    label: `${r.name} (${STRATEGY_WORDS[r.strategy] ?? r.strategy} in ${r.area})`,
    disabled: false,
  }));
  const known = new Set([
    'auto',
    ...regionOpts.map((o) => o.value),
    ...ruleOpts.map((o) => o.value),
  ]);
  return {
    auto: { value: 'auto', label: 'Automatic (best for you)', disabled: false },
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
