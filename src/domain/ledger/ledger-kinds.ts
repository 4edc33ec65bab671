/**
 * Why money moved. With a reference, each kind is unique, so a movement can be written at most once
 * whatever is retried: one debit and at most one refund per task, one charge per chat request, one
 * credit per idempotency key. `chat_hold` and `chat_release` are the entries of chat requests held
 * before migration 009 (a hold is now a reservation on the account, not a movement).
 */
export const LEDGER_KINDS = [
  'credit',
  'initial_credit',
  'generation_debit',
  'generation_refund',
  'chat_charge',
  'chat_hold',
  'chat_release',
  'agent_hold',
  'agent_release',
  'storage_charge',
  /** A paid top-up; reference: the payment provider's checkout session id. */
  'topup_credit',
  /** A redeem code; reference: redeemReference(code id, user id). */
  'redeem_credit',
] as const;

export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** Credits carry the caller's Idempotency-Key, scoped to the account so two users cannot collide. */
export function creditReference(userId: string, idempotencyKey: string): string {
  return `${userId}:${idempotencyKey}`;
}

/** One redemption of a code per user: the ledger's (kind, reference) uniqueness enforces it. */
export function redeemReference(codeId: string, userId: string): string {
  return `${codeId}:${userId}`;
}
