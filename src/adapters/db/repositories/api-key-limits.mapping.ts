import type { ApiKeyLimits, ApiKeyLimitsChange } from '../../../domain/api-key-limits.ts';
import type { ApiKeysTable } from '../tables/foundation.tables.ts';

type LimitColumns = Pick<ApiKeysTable, 'spend_cap_micro' | 'spend_cap_period' | 'expires_at' | 'allowed_models' | 'rpm_limit' | 'concurrency_limit'>;

/** The limits a key row records (migration 027). */
export function limitsOfRow(row: LimitColumns): ApiKeyLimits {
  return {
    spendCapMicro: row.spend_cap_micro === null ? null : Number(row.spend_cap_micro),
    spendCapPeriod: row.spend_cap_micro === null ? null : row.spend_cap_period === 'month' ? 'month' : 'total',
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    allowedModels: row.allowed_models === null ? null : (JSON.parse(row.allowed_models) as string[]),
    requestsPerMinute: row.rpm_limit === null ? null : Number(row.rpm_limit),
    concurrentGenerations: row.concurrency_limit === null ? null : Number(row.concurrency_limit),
  };
}

/** The columns a change sets (absent fields stay as they are). */
export function columnsOfChange(change: ApiKeyLimitsChange): Partial<LimitColumns> {
  const columns: Partial<LimitColumns> = {};
  if (change.spendCapMicro !== undefined) {
    columns.spend_cap_micro = change.spendCapMicro;
    columns.spend_cap_period = change.spendCapMicro === null ? null : (change.spendCapPeriod ?? 'total');
  } else if (change.spendCapPeriod !== undefined) columns.spend_cap_period = change.spendCapPeriod;
  if (change.expiresAt !== undefined) columns.expires_at = change.expiresAt;
  if (change.allowedModels !== undefined) columns.allowed_models = change.allowedModels === null ? null : JSON.stringify([...new Set(change.allowedModels)]);
  if (change.requestsPerMinute !== undefined) columns.rpm_limit = change.requestsPerMinute;
  if (change.concurrentGenerations !== undefined) columns.concurrency_limit = change.concurrentGenerations;
  return columns;
}
