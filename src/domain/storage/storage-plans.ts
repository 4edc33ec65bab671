/**
 * Paid storage for agent files (SPEC rule 18, "Storage subscription"): monthly plans, the billing
 * calendar and proration. Pure functions: the service decides when, these decide how much.
 */

export interface StoragePlan {
  id: string;
  name: string;
  quotaBytes: number;
  /** The price of one monthly period. */
  monthlyPriceMicro: number;
}

const GIB = 1024 ** 3;

/**
 * docs/decisions.md "Storage plans": three tiers, priced near object storage plus delivery. An
 * operator replaces them with `storagePlans` in the config file.
 */
export const DEFAULT_STORAGE_PLANS: readonly StoragePlan[] = [
  { id: 'storage-starter', name: 'Starter', quotaBytes: 10 * GIB, monthlyPriceMicro: 2_000_000 },
  { id: 'storage-pro', name: 'Pro', quotaBytes: 100 * GIB, monthlyPriceMicro: 8_000_000 },
  { id: 'storage-studio', name: 'Studio', quotaBytes: 1024 * GIB, monthlyPriceMicro: 40_000_000 },
];

/** The plans on offer, cheapest first. */
export class StoragePlanCatalog {
  readonly plans: readonly StoragePlan[];

  constructor(plans: readonly StoragePlan[] = DEFAULT_STORAGE_PLANS) {
    this.plans = [...plans].sort((a, b) => a.monthlyPriceMicro - b.monthlyPriceMicro || a.quotaBytes - b.quotaBytes);
  }

  find(id: string): StoragePlan | undefined {
    return this.plans.find((plan) => plan.id === id);
  }
}

/** After a period ends without a renewal, files stay readable for this long (SPEC "Limits"). */
export const STORAGE_GRACE_MS = 72 * 3_600_000;

/**
 * The end of period `index` of a subscription billed from `anchorMs`: `index + 1` calendar months
 * after the anchor in UTC, the day clamped to the month's length (a subscription of 31 January
 * renews on 28 or 29 February, then on 31 March: the billing date never drifts).
 */
export function periodEnd(anchorMs: number, index: number): number {
  const anchor = new Date(anchorMs);
  const months = anchor.getUTCMonth() + index + 1;
  const year = anchor.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(anchor.getUTCDate(), lastDay),
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
}

export function periodStart(anchorMs: number, index: number): number {
  return index === 0 ? anchorMs : periodEnd(anchorMs, index - 1);
}

/**
 * What an upgrade costs now: the difference of the monthly prices for the part of the paid period
 * that is left, rounded down to the micro-USD (the customer never pays for time already used).
 */
export function prorateUpgrade(fromPriceMicro: number, toPriceMicro: number, period: { start: number; end: number }, now: number): number {
  const difference = toPriceMicro - fromPriceMicro;
  if (difference <= 0) return 0;
  const length = period.end - period.start;
  const remaining = Math.min(Math.max(period.end - now, 0), length);
  if (length <= 0 || remaining === 0) return 0;
  return Number((BigInt(difference) * BigInt(remaining)) / BigInt(length));
}

export type StorageChangeKind = 'new' | 'reactivate' | 'upgrade' | 'downgrade' | 'unchanged';

export interface CurrentSubscription {
  planId: string;
  status: 'active' | 'grace' | 'lapsed';
  periodStart: number;
  periodEnd: number;
}

/** Which change a subscription to `plan` would be, from the current subscription (if any). */
export function changeKind(current: CurrentSubscription | undefined, plan: StoragePlan, catalog: StoragePlanCatalog): StorageChangeKind {
  if (!current || current.status === 'lapsed') return 'new';
  if (current.status === 'grace') return 'reactivate';
  if (current.planId === plan.id) return 'unchanged';
  const currentPlan = catalog.find(current.planId);
  if (!currentPlan || plan.monthlyPriceMicro > currentPlan.monthlyPriceMicro) return 'upgrade';
  return 'downgrade';
}
