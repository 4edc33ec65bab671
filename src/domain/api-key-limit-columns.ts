/**
 * How a key's limits are recorded in its row (migration 027): one column each, null when the key has
 * none. The mapping is pure, so the services (which read key rows through the account store) and the
 * presenters share it with the store.
 */
import type { ApiKeyLimits, ApiKeyLimitsChange } from './api-key-limits.ts';

/** A key's limit columns as stored (migration 027), each null when the key has none. */
export interface ApiKeyLimitColumns {
  spend_cap_micro: number | null;
  /** 'total' or 'month' (calendar month, UTC); set with the cap. */
  spend_cap_period: string | null;
  expires_at: number | null;
  /** A JSON array of model names the key may use. */
  allowed_models: string | null;
  rpm_limit: number | null;
  /** Tokens per minute (migration 039). */
  tpm_limit: number | null;
  concurrency_limit: number | null;
}

/** The limits a key row records (migration 027). */
export function limitsOfRow(row: ApiKeyLimitColumns): ApiKeyLimits {
  return {
    spendCapMicro: row.spend_cap_micro === null ? null : Number(row.spend_cap_micro),
    spendCapPeriod: row.spend_cap_micro === null ? null : row.spend_cap_period === 'month' ? 'month' : 'total',
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    allowedModels: row.allowed_models === null ? null : (JSON.parse(row.allowed_models) as string[]),
    requestsPerMinute: row.rpm_limit === null ? null : Number(row.rpm_limit),
    tokensPerMinute: row.tpm_limit === null || row.tpm_limit === undefined ? null : Number(row.tpm_limit),
    concurrentGenerations: row.concurrency_limit === null ? null : Number(row.concurrency_limit),
  };
}

/** The columns a change sets (absent fields stay as they are). */
export function columnsOfChange(change: ApiKeyLimitsChange): Partial<ApiKeyLimitColumns> {
  const columns: Partial<ApiKeyLimitColumns> = {};
  if (change.spendCapMicro !== undefined) {
    columns.spend_cap_micro = change.spendCapMicro;
    columns.spend_cap_period = change.spendCapMicro === null ? null : (change.spendCapPeriod ?? 'total');
  } else if (change.spendCapPeriod !== undefined) columns.spend_cap_period = change.spendCapPeriod;
  if (change.expiresAt !== undefined) columns.expires_at = change.expiresAt;
  if (change.allowedModels !== undefined) columns.allowed_models = change.allowedModels === null ? null : JSON.stringify([...new Set(change.allowedModels)]);
  if (change.requestsPerMinute !== undefined) columns.rpm_limit = change.requestsPerMinute;
  if (change.tokensPerMinute !== undefined) columns.tpm_limit = change.tokensPerMinute;
  if (change.concurrentGenerations !== undefined) columns.concurrency_limit = change.concurrentGenerations;
  return columns;
}
