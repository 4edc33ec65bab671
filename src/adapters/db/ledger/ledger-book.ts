/**
 * The book (ports/ledger.port.ts, LedgerBook) on both engines: the same Kysely statements serve
 * SQLite and PostgreSQL, so one stateless instance. Each movement is one guarded balance change
 * (domain/ledger/settlement.ts, canMove, in its WHERE clause) and one entry unique by (kind, reference).
 */
import { AppError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { assertMicro } from '../../../domain/money.ts';
import type { LedgerBook, LedgerEntry, LedgerMovement, PostedEntry } from '../../../ports/ledger.port.ts';
import { findUserById } from '../repositories/users.repository.ts';
import { type Executor, executorOf } from '../schema.ts';
import { moveKeySpend } from './api-key-spend.repository.ts';
import { spendCapReached } from './spend-cap-refusal.ts';
import { abandonChatHold, insertJobSettledRow, takeChatHold } from './chat-holds.repository.ts';
import type { ChatHold } from '../../../ports/ledger.port.ts';
import { applyGuardedBalanceChange, findEntry, insertEntryOnce, lockAccount } from './ledger.repository.ts';

/**
 * Writes one ledger entry and changes the balance by the same amount, in the caller's transaction.
 * The balance never goes below what is held (insufficient_balance), and a repeated (kind, reference)
 * changes nothing and returns the first entry.
 */
async function post(tx: Executor, movement: LedgerMovement, now: number = Date.now()): Promise<PostedEntry> {
  assertMicro(movement.amountMicro);
  const balance = await applyGuardedBalanceChange(tx, movement.userId, movement.amountMicro);
  if (balance === undefined) {
    const existing = await findEntry(tx, movement.kind, movement.reference);
    if (existing) return { entry: existing, created: false };
    const user = await findUserById(tx, movement.userId);
    if (!user) throw new AppError('user_not_found', `user ${movement.userId} not found`);
    throw new AppError('insufficient_balance', 'insufficient balance for this request');
  }
  // After the user's row (the lock order of every money transaction); a refusal undoes the balance.
  const keyId = movement.apiKeyId ?? null;
  const keyDelta = { spentMicro: -movement.amountMicro, heldMicro: 0 };
  const keyAt = movement.keySpendAt ?? now;
  const moved = keyId !== null && movement.amountMicro !== 0 ? await moveKeySpend(tx, keyId, keyAt, keyDelta, movement.amountMicro < 0) : 'moved';
  if (moved !== 'moved') {
    await applyGuardedBalanceChange(tx, movement.userId, -movement.amountMicro);
    throw spendCapReached(moved);
  }
  const entry: LedgerEntry = {
    id: newId('led', now),
    user_id: movement.userId,
    kind: movement.kind,
    reference: movement.reference,
    amount_micro: movement.amountMicro,
    balance_after_micro: balance,
    note: movement.note ?? null,
    created_at: now,
    ...(movement.memberId ? { member_id: movement.memberId } : {}),
  };
  if (await insertEntryOnce(tx, entry, keyId)) return { entry, created: true };
  const existing = await findEntry(tx, movement.kind, movement.reference);
  if (!existing) throw new Error(`ledger entry ${movement.kind}/${movement.reference} vanished`);
  // Belt and braces: if the row found is ours, the driver under-reported the insert; keep both writes.
  if (existing.id === entry.id) return { entry, created: true };
  // Written before: undo our change (the row is still ours in this transaction) and replay the first.
  await applyGuardedBalanceChange(tx, movement.userId, -movement.amountMicro);
  if (keyId !== null && movement.amountMicro !== 0) await moveKeySpend(tx, keyId, keyAt, { spentMicro: movement.amountMicro, heldMicro: 0 }, false);
  return { entry: existing, created: false };
}

/**
 * Settles a hold its serving process could not settle (chat-holds.repository.ts,
 * deferChatSettlement) with the charge it left, never above the hold: the hold goes back, then the
 * charge is one `chat_charge` entry (it fits: the balance covered the hold). False when the hold was gone.
 */
async function settleDeferredHold(tx: Executor, hold: ChatHold, now: number): Promise<boolean> {
  const charge = Math.max(0, Math.min(Number(hold.settle_micro ?? 0), hold.hold_micro));
  if (!(await takeChatHold(tx, hold))) return false;
  if (charge > 0) {
    const note = `${hold.model} (settled by the chat_settle job)`;
    await post(tx, { userId: hold.user_id, kind: 'chat_charge', reference: hold.id, amountMicro: -charge, apiKeyId: hold.api_key_id, keySpendAt: hold.created_at, note }, now);
  }
  await insertJobSettledRow(tx, hold, now, {
    status: hold.settle_status ?? 'succeeded',
    costMicro: charge,
    // The charge is an estimate (the tokens are not known here); nothing charged, nothing estimated.
    usageEstimated: charge > 0,
    errorCode: 'settlement_deferred',
    errorMessage: 'The serving process could not settle this request; the chat_settle job charged its estimate.',
  });
  return true;
}

/** The port's transactions are the store's own (executorOf checks it at run time). */
export const kyselyLedgerBook: LedgerBook = {
  post: (tx, movement, now) => post(executorOf(tx), movement, now),
  lockAccount: (tx, userId) => lockAccount(executorOf(tx), userId),
  find: (db, kind, reference) => findEntry(executorOf(db), kind, reference),
  releaseAbandonedHold: (tx, hold, now) => abandonChatHold(executorOf(tx), hold, now),
  settleDeferredHold: (tx, hold, now) => settleDeferredHold(executorOf(tx), hold, now),
};
