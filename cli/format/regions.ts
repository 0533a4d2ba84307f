// netcli's words for regions, region rules and latency measurements.
import type { NodeLatency, RegionRule } from '../../contracts/index.js';
import { table } from './table.js';

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

const percent = (share: number) => `${Math.round(share * 100)}%`;

export function formatRegions(view: RegionsView): string[] {
  const lines = table(
    ['REGION', 'NAME', 'AREA', 'LOAD', 'LATENCY', 'PLAN', 'STREAMING VERIFIED'],
    view.regions.map((r) => [
      r.id,
      r.name,
      r.area,
      percent(r.load),
      r.latency ?? '-',
      r.allowed ? 'yes' : 'no',
      r.platforms_verified?.length ? r.platforms_verified.join(', ') : '-',
    ]),
  );
  lines.push('');
  if (view.rules.length === 0) {
    lines.push('No region rules (add one: netcli region add --area <area> --strategy <strategy>).');
  } else {
    lines.push(
      ...table(
        ['RULE', 'AREA', 'STRATEGY'],
        view.rules.map((r) => [r.name, r.area, r.strategy]),
      ),
    );
  }
  return lines;
}

export function formatRule(rule: RegionRule): string[] {
  return [
    `Region rule ${rule.name}: ${rule.strategy} in ${rule.area}.`,
    `Use it wherever a region goes: netcli connect --region ${rule.name}`,
  ];
}

const ms = (v: number | null) => (v === null ? '-' : `${v < 10 ? v.toFixed(1) : Math.round(v)}ms`);

/** Fastest first; nodes that never answered last. */
export function sortByLatency(results: readonly NodeLatency[]): NodeLatency[] {
  return [...results].sort(
    (a, b) =>
      (a.avg_ms ?? Infinity) - (b.avg_ms ?? Infinity) ||
      a.loss - b.loss ||
      a.node_id.localeCompare(b.node_id),
  );
}

export function formatLatency(view: {
  results: NodeLatency[];
  duration_ms: number;
  note?: string | undefined;
}): string[] {
  if (view.results.length === 0)
    return [view.note ? `No node measured: ${view.note}.` : 'No node to measure.'];
  const sorted = sortByLatency(view.results);
  const methods = [...new Set(sorted.map((r) => r.method))];
  const headers = ['NODE', 'REGION', 'AVG', 'JITTER', 'LOSS', 'SAMPLES'];
  const row = (r: NodeLatency) => [
    r.node_id,
    r.region,
    ms(r.avg_ms),
    ms(r.jitter_ms),
    percent(r.loss),
    String(r.samples),
  ];
  const lines =
    methods.length === 1
      ? table(headers, sorted.map(row))
      : table(
          [...headers, 'METHOD'],
          sorted.map((r) => [...row(r), r.method]),
        );
  const took = `${(view.duration_ms / 1000).toFixed(1)} s`;
  lines.push(methods.length === 1 ? `Method: ${methods[0]}; took ${took}.` : `Took ${took}.`);
  if (view.note) lines.push(`Note: ${view.note}.`);
  return lines;
}
