// The plans (free basic, paid premium) and what each allows.
import type { Plan, Protocol } from '../../contracts/index.js';

export interface PlanRule {
  id: string;
  name: string;
  priceMonthlyEur: number;
  deviceLimit: number;
  /** Region ids, or 'all' for every region, including ones added later. */
  regions: readonly string[] | 'all';
  dataCapBytes: number | null;
  bandwidthLimitMbps: number | null;
  protocols: readonly Protocol[];
}

const GiB = 1024 ** 3;

export const PLANS: readonly PlanRule[] = [
  {
    id: 'basic',
    name: 'Basic (free)',
    priceMonthlyEur: 0,
    deviceLimit: 3,
    regions: ['global', 'asia-east'],
    dataCapBytes: 10 * GiB,
    bandwidthLimitMbps: 20,
    protocols: ['wireguard', 'ferry'],
  },
  {
    id: 'premium',
    name: 'Premium',
    priceMonthlyEur: 5,
    deviceLimit: 10,
    regions: 'all',
    dataCapBytes: null,
    bandwidthLimitMbps: null,
    protocols: ['wireguard', 'ferry'],
  },
];

export const DEFAULT_PLAN = 'basic';

export function findPlan(id: string): PlanRule | undefined {
  return PLANS.find((p) => p.id === id);
}

/** A plan id read back from our own database; anything else is a bug, not user input. */
export function planOf(id: string): PlanRule {
  const plan = findPlan(id);
  if (!plan) throw new Error(`unknown plan in database: ${id}`);
  return plan;
}

export function planAllowsRegion(plan: PlanRule, regionId: string): boolean {
  return plan.regions === 'all' || plan.regions.includes(regionId);
}

/** Whether `bytes` this month reach the plan's data cap (never, without a cap). */
export function isOverCap(plan: PlanRule, bytes: number): boolean {
  return plan.dataCapBytes !== null && bytes >= plan.dataCapBytes;
}

export function planView(plan: PlanRule, allRegionIds: readonly string[]): Plan {
  return {
    id: plan.id,
    name: plan.name,
    price_monthly_eur: plan.priceMonthlyEur,
    device_limit: plan.deviceLimit,
    regions: allRegionIds.filter((r) => planAllowsRegion(plan, r)),
    data_cap_bytes: plan.dataCapBytes,
    bandwidth_limit_mbps: plan.bandwidthLimitMbps,
    protocols: [...plan.protocols],
  };
}
