/** What the storage endpoints answer: money as micro-USD strings, times as ISO 8601. */
import type { StorageChargeRow, StorageQuoteRow, StorageSubscriptionRow } from '../../ports/storage-store.port.ts';
import type { StoragePlan, StoragePlanCatalog } from '../../domain/storage/storage-plans.ts';

export interface StoragePlanView {
  planId: string;
  name: string;
  quotaBytes: number;
  priceMicroUsd: string;
  interval: 'month';
}

export interface StorageSubscriptionView {
  planId: string;
  planName: string;
  /** A downgrade that takes effect at the next renewal. */
  nextPlanId: string | null;
  status: 'active' | 'grace' | 'lapsed';
  quotaBytes: number;
  usedBytes: number;
  autoRenew: boolean;
  currentPeriod: { start: string; end: string };
  /** The next renewal (the end of the paid period); null unless active with auto-renew on. */
  renewsAt: string | null;
  nextRenewalMicroUsd: string | null;
  graceEndsAt: string | null;
  /** The subscription's version: the `quotaVersion` of quotes and subscribe. */
  version: number;
}

export interface StorageQuoteView {
  quoteId: string;
  planId: string;
  change: string;
  amountMicroUsd: string;
  balanceMicroUsd: string;
  balanceAfterMicroUsd: string;
  period: { start: string; end: string };
  quotaVersion: number;
  expiresAt: string;
}

export interface StorageChargeView {
  chargeId: string;
  planId: string;
  kind: string;
  amountMicroUsd: string;
  period: { start: string; end: string };
  createdAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function presentPlan(plan: StoragePlan): StoragePlanView {
  return { planId: plan.id, name: plan.name, quotaBytes: plan.quotaBytes, priceMicroUsd: String(plan.monthlyPriceMicro), interval: 'month' };
}

export function presentSubscription(row: StorageSubscriptionRow, catalog: StoragePlanCatalog): StorageSubscriptionView {
  const renewing = row.status === 'active' && row.auto_renew === 1;
  const next = catalog.find(row.next_plan_id ?? row.plan_id);
  return {
    planId: row.plan_id,
    planName: catalog.find(row.plan_id)?.name ?? row.plan_id,
    nextPlanId: row.next_plan_id,
    status: row.status,
    quotaBytes: row.quota_bytes,
    usedBytes: row.used_bytes,
    autoRenew: row.auto_renew === 1,
    currentPeriod: { start: iso(row.period_start), end: iso(row.period_end) },
    renewsAt: renewing ? iso(row.period_end) : null,
    nextRenewalMicroUsd: renewing && next ? String(next.monthlyPriceMicro) : null,
    graceEndsAt: row.grace_ends_at === null ? null : iso(row.grace_ends_at),
    version: row.version,
  };
}

export function presentQuote(row: StorageQuoteRow, balanceMicro: number): StorageQuoteView {
  return {
    quoteId: row.id,
    planId: row.plan_id,
    change: row.change_kind,
    amountMicroUsd: String(row.amount_micro),
    balanceMicroUsd: String(balanceMicro),
    balanceAfterMicroUsd: String(row.balance_after_micro),
    period: { start: iso(row.period_start), end: iso(row.period_end) },
    quotaVersion: row.quota_version,
    expiresAt: iso(row.expires_at),
  };
}

export function presentCharge(row: StorageChargeRow): StorageChargeView {
  return {
    chargeId: row.id,
    planId: row.plan_id,
    kind: row.charge_kind,
    amountMicroUsd: String(row.amount_micro),
    period: { start: iso(row.period_start), end: iso(row.period_end) },
    createdAt: iso(row.created_at),
  };
}
