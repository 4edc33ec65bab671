import type { CheckoutStatus } from '../../../domain/payments/checkout-status.ts';
import type { Executor } from '../schema.ts';
import type { PaymentCheckoutsTable } from '../tables/payments.tables.ts';

export type CheckoutRow = PaymentCheckoutsTable;

/** Inserts the checkout unless the user already has one with this idempotency key; true when inserted. */
export async function insertCheckoutOnce(db: Executor, row: CheckoutRow): Promise<boolean> {
  const result = await db
    .insertInto('payment_checkouts')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findCheckoutByKey(db: Executor, userId: string, idempotencyKey: string): Promise<CheckoutRow | undefined> {
  return db.selectFrom('payment_checkouts').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
}

export async function findCheckoutBySession(db: Executor, sessionId: string): Promise<CheckoutRow | undefined> {
  return db.selectFrom('payment_checkouts').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
}

export async function findCheckout(db: Executor, id: string): Promise<CheckoutRow | undefined> {
  return db.selectFrom('payment_checkouts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records the provider's session on a checkout that has none yet (a retry finds it set and keeps it). */
export async function attachSession(db: Executor, id: string, sessionId: string, url: string): Promise<void> {
  await db.updateTable('payment_checkouts').set({ session_id: sessionId, url }).where('id', '=', id).where('session_id', 'is', null).execute();
}

/** Compare-and-set from one of `from` (default `created`): true for the one writer that moved it. */
export async function completeCheckout(
  db: Executor,
  id: string,
  status: Exclude<CheckoutStatus, 'created'>,
  now: number,
  from: readonly CheckoutStatus[] = ['created'],
): Promise<boolean> {
  const result = await db
    .updateTable('payment_checkouts')
    .set({ status, completed_at: now })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Holds a checkout the provider says was paid with another amount or currency than we opened (from
 * `created`, `expired` or `failed`, like a credit): true for the one writer that moved it.
 */
export async function holdCheckoutForReview(db: Executor, id: string, paid: { amountMinor: number; currency: string }, now: number): Promise<boolean> {
  const result = await db
    .updateTable('payment_checkouts')
    .set({ status: 'review', completed_at: now, paid_amount_minor: paid.amountMinor, paid_currency: paid.currency })
    .where('id', '=', id)
    .where('status', 'in', ['created', 'expired', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Checkouts held for an operator, oldest first (`ledger verify` and the admin API list them). */
export async function listCheckoutsInReview(db: Executor, limit = 500): Promise<CheckoutRow[]> {
  return db.selectFrom('payment_checkouts').selectAll().where('status', '=', 'review').orderBy('completed_at').orderBy('id').limit(limit).execute();
}

export async function listCheckouts(db: Executor, userId: string, limit: number): Promise<CheckoutRow[]> {
  return db.selectFrom('payment_checkouts').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

