// netcli's words for regions, region rules and latency measurements.
import type { NodeLatency, RegionRule, Translate } from '../../contracts/index.js';
import { table } from './table.js';
import { english, isEnglish, latencyText, numberText } from './words.js';

export interface RegionsView {
  regions: {
    id: string;
    name: string;
    area: string;
    load: number;
    allowed: boolean;
    latency: string | null;
    /** Platforms a healthy node of the region was verified for recently (stream mode). */
    platforms_verified?: string[];
  }[];
  rules: RegionRule[];
}

const percent = (share: number, t: Translate) =>
  isEnglish(t)
    ? `${Math.round(share * 100)}%`
    : numberText(Math.round(share * 100) / 100, t, { style: 'percent' });

export function formatRegions(view: RegionsView, t: Translate = english): string[] {
  const lines = table(
    [
      t('output.regions.columns.region'),
      t('output.regions.columns.name'),
      t('output.regions.columns.area'),
      t('output.regions.columns.load'),
      t('output.regions.columns.latency'),
      t('output.regions.columns.plan'),
      t('output.regions.columns.verified'),
    ],
    view.regions.map((r) => [
      r.id,
      r.name,
      r.area,
      percent(r.load, t),
      r.latency ? latencyText(r.latency, t) : '-',
      r.allowed ? t('output.regions.yes') : t('output.regions.no'),
      r.platforms_verified?.length ? r.platforms_verified.join(', ') : '-',
    ]),
  );
  lines.push('');
  if (view.rules.length === 0) {
    lines.push(t('output.regions.noRules'));
  } else {
    lines.push(
      ...table(
        [
          t('output.regions.columns.rule'),
          t('output.regions.columns.area'),
          t('output.regions.columns.strategy'),
        ],
        view.rules.map((r) => [r.name, r.area, r.strategy]),
      ),
    );
  }
  return lines;
}

export function formatRule(rule: RegionRule, t: Translate = english): string[] {
  return [
    t('output.regions.rule', { name: rule.name, strategy: rule.strategy, area: rule.area }),
    t('output.regions.useRule', { name: rule.name }),
  ];
}

const ms = (v: number | null, t: Translate) => {
  if (v === null) return '-';
  const value = v < 10 ? Number(v.toFixed(1)) : Math.round(v);
  return isEnglish(t)
    ? `${v < 10 ? v.toFixed(1) : Math.round(v)}ms`
    : t('output.units.ms', { value });
};

/** Fastest first; nodes that never answered last. */
export function sortByLatency(results: readonly NodeLatency[]): NodeLatency[] {
  return [...results].sort(
    (a, b) =>
      (a.avg_ms ?? Infinity) - (b.avg_ms ?? Infinity) ||
      a.loss - b.loss ||
      a.node_id.localeCompare(b.node_id),
  );
}

export function formatLatency(
  view: {
    results: NodeLatency[];
    duration_ms: number;
    note?: string | undefined;
  },
  t: Translate = english,
): string[] {
  if (view.results.length === 0)
    return [
      view.note
        ? t('output.latency.noneMeasured', { note: view.note })
        : t('output.latency.noNode'),
    ];
  const sorted = sortByLatency(view.results);
  const methods = [...new Set(sorted.map((r) => r.method))];
  const headers = [
    t('output.latency.columns.node'),
    t('output.latency.columns.region'),
    t('output.latency.columns.avg'),
    t('output.latency.columns.jitter'),
    t('output.latency.columns.loss'),
    t('output.latency.columns.samples'),
  ];
  const row = (r: NodeLatency) => [
    r.node_id,
    r.region,
    ms(r.avg_ms, t),
    ms(r.jitter_ms, t),
    percent(r.loss, t),
    isEnglish(t) ? String(r.samples) : numberText(r.samples, t),
  ];
  const lines =
    methods.length === 1
      ? table(headers, sorted.map(row))
      : table(
          [...headers, t('output.latency.columns.method')],
          sorted.map((r) => [...row(r), r.method]),
        );
  const seconds = Number((view.duration_ms / 1000).toFixed(1));
  const took = isEnglish(t)
    ? `${(view.duration_ms / 1000).toFixed(1)} s`
    : t('output.units.s', { value: seconds });
  lines.push(
    methods.length === 1
      ? t('output.latency.methodTook', { method: methods[0], took })
      : t('output.latency.took', { took }),
  );
  if (view.note) lines.push(t('output.latency.note', { note: view.note }));
  return lines;
}
