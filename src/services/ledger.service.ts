import {
  applyGuardedBalanceChange,
  findBalanceMismatches,
  findEntry,
  findHeldMismatches,
  insertEntryOnce,
  type BalanceMismatch,
  type HeldMismatch,
  type LedgerEntryRow,
} from '../adapters/db/repositories/ledger.repository.ts';
import { findOperationLedgerMismatches, type OperationLedgerMismatch } from '../adapters/db/repositories/agent/operations.repository.ts';
import { findRunBookMismatches, type RunBookMismatch } from '../adapters/db/repositories/agent/runs.repository.ts';
import { findStorageChargeMismatches, type StorageChargeMismatch } from '../adapters/db/repositories/storage.repository.ts';
import { findCheckoutLedgerMismatches, type PaidCheckoutMismatch } from '../adapters/db/repositories/payments.repository.ts';
import { findUserById } from '../adapters/db/repositories/users.repository.ts';
import type { Kysely } from 'kysely';
import type { Executor, Schema } from '../adapters/db/schema.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { LedgerKind } from '../domain/ledger/ledger-kinds.ts';
import { assertMicro } from '../domain/money.ts';

export interface LedgerMovement {
  userId: string;
  kind: LedgerKind;
  reference: string;
  /** Positive adds money, negative takes it. */
  amountMicro: number;
  note?: string | null;
}

export interface PostedEntry {
  entry: LedgerEntryRow;
  /** False when (kind, reference) had been written before: nothing changed this time. */
  created: boolean;
}

/**
 * Writes one ledger entry and changes the balance by the same amount, in the caller's transaction.
 * The balance never goes below zero (insufficient_balance), and a repeated (kind, reference) changes
 * nothing and returns the first entry.
 */
export async function postLedgerEntry(tx: Executor, movement: LedgerMovement, now: number = Date.now()): Promise<PostedEntry> {
  assertMicro(movement.amountMicro);
  const balance = await applyGuardedBalanceChange(tx, movement.userId, movement.amountMicro);
  if (balance === undefined) {
    const existing = await findEntry(tx, movement.kind, movement.reference);
    if (existing) return { entry: existing, created: false };
    const user = await findUserById(tx, movement.userId);
    if (!user) throw new AppError('user_not_found', `user ${movement.userId} not found`);
    throw new AppError('insufficient_balance', 'insufficient balance for this request');
  }
  const entry: LedgerEntryRow = {
    id: newId('led', now),
    user_id: movement.userId,
    kind: movement.kind,
    reference: movement.reference,
    amount_micro: movement.amountMicro,
    balance_after_micro: balance,
    note: movement.note ?? null,
    created_at: now,
  };
  if (await insertEntryOnce(tx, entry)) return { entry, created: true };
  const existing = await findEntry(tx, movement.kind, movement.reference);
  if (!existing) throw new Error(`ledger entry ${movement.kind}/${movement.reference} vanished`);
  // Belt and braces: if the row found is ours, the driver under-reported the insert; keep both writes.
  if (existing.id === entry.id) return { entry, created: true };
  // Written before: undo our change (the row is still ours in this transaction) and replay the first.
  await applyGuardedBalanceChange(tx, movement.userId, -movement.amountMicro);
  return { entry: existing, created: false };
}

/** Runs postLedgerEntry in its own transaction. */
export async function postLedgerEntryAlone(db: Kysely<Schema>, movement: LedgerMovement): Promise<PostedEntry> {
  return db.transaction().execute((tx) => postLedgerEntry(tx, movement));
}

export type LedgerMismatch = BalanceMismatch | HeldMismatch | RunBookMismatch | OperationLedgerMismatch | StorageChargeMismatch | PaidCheckoutMismatch;

/**
 * The books' invariants, as a list of what breaks them (empty when they hold): every balance is the
 * sum of its ledger entries, every account's held money the sum of its running requests' holds, and
 * every agent run's budget agrees with its operations (settled and committed totals, within the limit)
 * and each closed operation with the ledger (a chat call's charge, a generation's debit less refund),
 * every storage charge with its ledger entry; every paid top-up has exactly its one credit, and every
 * top-up credit a paid checkout.
 */
export async function verifyLedger(db: Executor): Promise<LedgerMismatch[]> {
  return [
    ...(await findBalanceMismatches(db)),
    ...(await findHeldMismatches(db)),
    ...(await findRunBookMismatches(db)),
    ...(await findOperationLedgerMismatches(db)),
    ...(await findStorageChargeMismatches(db)),
    ...(await findCheckoutLedgerMismatches(db)),
  ];
}
