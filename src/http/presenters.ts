import type { ApiKeyRow } from '../adapters/db/repositories/api-keys.repository.ts';
import { limitsOfRow } from '../domain/api-key-limit-columns.ts';
import type { ApiKeyLimits } from '../domain/api-key-limits.ts';
import type { LedgerEntriesRow as LedgerEntryRow } from '../ports/store-rows/foundation.rows.ts';
import type { UserSummaryRow } from '../adapters/db/repositories/users.repository.ts';
import { MICRO_PER_CENT, microToCentsFloor, spendableMicro } from '../domain/money.ts';
import { iso } from './schemas.ts';

/**
 * API shapes of stored rows: cents and ISO times at the edge, never the key hash. A user's `balance`
 * is what they can spend: the money they have less what running requests hold.
 */
export function presentUser(user: UserSummaryRow) {
  return { id: user.id, email: user.email, balance: microToCentsFloor(spendableMicro(user)), createdAt: iso(user.created_at) };
}

export function presentApiKey(key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: iso(key.created_at),
    lastUsedAt: iso(key.last_used_at),
    revokedAt: iso(key.revoked_at),
    limits: presentLimits(limitsOfRow(key)),
    manageKeys: key.manage_keys === 1,
  };
}

export function presentLimits(limits: ApiKeyLimits) {
  return {
    spendCapMicroUsd: limits.spendCapMicro,
    spendCapPeriod: limits.spendCapPeriod,
    expiresAt: iso(limits.expiresAt),
    allowedModels: limits.allowedModels === null ? null : [...limits.allowedModels],
    requestsPerMinute: limits.requestsPerMinute,
    tokensPerMinute: limits.tokensPerMinute,
    concurrentGenerations: limits.concurrentGenerations,
  };
}

export function presentLedgerEntry(entry: LedgerEntryRow) {
  return {
    id: entry.id,
    userId: entry.user_id,
    kind: entry.kind,
    reference: entry.reference,
    amountMicroUsd: String(entry.amount_micro),
    amountCents: entry.amount_micro / MICRO_PER_CENT,
    balanceAfterMicroUsd: String(entry.balance_after_micro),
    balanceAfterCents: microToCentsFloor(entry.balance_after_micro),
    note: entry.note,
    createdAt: iso(entry.created_at),
  };
}
