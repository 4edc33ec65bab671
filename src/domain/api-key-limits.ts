/**
 * The limits an API key may carry (issue 21, item 15), each absent when the key has none. The spend
 * cap is enforced by the ledger (api_key_spend, in the transaction of the debit or hold); the rest
 * at the door, from the authenticated identity.
 */
import { invalidInput } from './errors.ts';
import type { KeySpendCapPeriod } from './ledger/key-spend-period.ts';

export interface ApiKeyLimits {
  spendCapMicro: number | null;
  spendCapPeriod: KeySpendCapPeriod | null;
  expiresAt: number | null;
  allowedModels: readonly string[] | null;
  requestsPerMinute: number | null;
  /** Input plus output tokens per minute of its text requests (issue 33, item 6): running ones count their worst case. */
  tokensPerMinute: number | null;
  concurrentGenerations: number | null;
}

export const NO_KEY_LIMITS: ApiKeyLimits = {
  spendCapMicro: null,
  spendCapPeriod: null,
  expiresAt: null,
  allowedModels: null,
  requestsPerMinute: null,
  tokensPerMinute: null,
  concurrentGenerations: null,
};

/** What the API accepts: any subset; null clears a limit. */
export type ApiKeyLimitsChange = Partial<ApiKeyLimits>;

const MAX_ALLOWED_MODELS = 200;

/** Checks a change beyond its JSON schema (ranges that depend on each other, the clock). */
export function validateLimitsChange(change: ApiKeyLimitsChange, now: number): ApiKeyLimitsChange {
  if (change.spendCapMicro !== undefined && change.spendCapMicro !== null && (!Number.isSafeInteger(change.spendCapMicro) || change.spendCapMicro < 0)) {
    throw invalidInput('spendCapMicroUsd must be a non-negative integer', 'limits.spendCapMicroUsd');
  }
  if (change.expiresAt !== undefined && change.expiresAt !== null && change.expiresAt <= now) throw invalidInput('expiresAt must be in the future', 'limits.expiresAt');
  if (change.allowedModels && change.allowedModels.length > MAX_ALLOWED_MODELS) throw invalidInput(`allowedModels takes at most ${MAX_ALLOWED_MODELS} models`, 'limits.allowedModels');
  for (const field of ['requestsPerMinute', 'tokensPerMinute', 'concurrentGenerations'] as const) {
    const value = change[field];
    if (value !== undefined && value !== null && (!Number.isSafeInteger(value) || value < 1)) throw invalidInput(`${field} must be a positive integer`, `limits.${field}`);
  }
  return change;
}

/** Whether the key may use `model` (no allow-list: every model). */
export function keyAllowsModel(limits: ApiKeyLimits, model: string): boolean {
  return limits.allowedModels === null || limits.allowedModels.includes(model);
}
