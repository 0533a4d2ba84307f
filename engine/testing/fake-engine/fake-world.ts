// The fake engine's control plane, as data: its regions and nodes, the plan's device limit, the
// exit addresses, and how a region choice (auto, a region, a rule) lands on a region, refused as
// the control plane refuses it.
import { ApiError, type Region, type RegionRule } from '../../../contracts/index.js';

export const FAKE_REGIONS: readonly Region[] = [
  {
    id: 'global',
    name: 'Global',
    area: 'global',
    country: null,
    load: 0.4,
    nodes_healthy: 2,
    platforms_verified: [],
    allowed: true,
    entry: false,
  },
  {
    id: 'asia-east',
    name: 'Asia East',
    area: 'asia',
    country: 'HK',
    load: 0.2,
    nodes_healthy: 1,
    platforms_verified: ['netflix'],
    allowed: true,
    entry: false,
  },
  {
    id: 'europe-west',
    name: 'Europe West',
    area: 'europe',
    country: 'NL',
    load: 0.1,
    nodes_healthy: 1,
    platforms_verified: [],
    allowed: false,
    entry: false,
  },
];

/** The one node of each region. */
export const NODE_OF_REGION: Readonly<Record<string, string>> = {
  global: 'zrh-1',
  'asia-east': 'hk-1',
  'europe-west': 'ams-1',
};

export const FAKE_DEVICE_LIMIT = 5;
export const FAKE_EXIT = { before: '198.18.5.10', after: '198.19.5.20' } as const;

/**
 * Where a region choice lands, and the strategy that chose it; a region there is not is the
 * control plane's validation-failed (naming what it takes), one the plan lacks its
 * region-not-in-plan.
 */
export function placeChoice(
  rules: readonly RegionRule[],
  choice: string,
): { region: string; strategy: string } {
  const rule = rules.find((r) => r.name === choice);
  const allowed = FAKE_REGIONS.filter((r) => r.allowed);
  if (rule) {
    const region = allowed.find((r) => r.area === rule.area);
    if (region) return { region: region.id, strategy: rule.strategy };
  }
  if (choice === 'auto') return { region: allowed[0]!.id, strategy: 'lowest-latency' };
  const region = FAKE_REGIONS.find((r) => r.id === choice);
  if (!region) {
    const areas = [...new Set(FAKE_REGIONS.map((r) => r.area))].sort();
    throw new ApiError({
      code: 'validation-failed',
      detail: `unknown region "${choice}"`,
      route: 'POST /connect',
      status: 400,
      errors: [
        {
          field: 'region',
          message:
            'auto, a region id, or a region rule <area>[:lowest-latency|least-load|fallback]',
          allowed: [
            'auto',
            ...FAKE_REGIONS.map((r) => r.id).sort(),
            ...areas.map((a) => `${a}[:strategy]`),
          ],
        },
      ],
    });
  }
  if (!region.allowed) {
    throw new ApiError({
      code: 'region-not-in-plan',
      detail: `your plan does not include ${region.id}`,
      route: 'POST /connect',
      status: 403,
    });
  }
  return { region: region.id, strategy: 'region' };
}
