import { kyselyLedgerBook } from '../adapters/db/ledger/ledger-book.ts';
import { findBalanceMismatches, findHeldMismatches, type BalanceMismatch, type HeldMismatch } from '../adapters/db/ledger/ledger.repository.ts';
import { findOperationLedgerMismatches, type OperationLedgerMismatch } from '../adapters/db/repositories/agent/operations.repository.ts';
import { findRunBookMismatches, type RunBookMismatch } from '../adapters/db/repositories/agent/runs.repository.ts';
import { findStorageChargeMismatches, type StorageChargeMismatch } from '../adapters/db/repositories/storage.repository.ts';
import { findCheckoutLedgerMismatches, type PaidCheckoutMismatch } from '../adapters/db/repositories/payments.repository.ts';
import type { Kysely } from 'kysely';
import type { Executor, Schema } from '../adapters/db/schema.ts';
import type { LedgerBook, LedgerMovement, PostedEntry } from '../ports/ledger.port.ts';

export type { LedgerMovement, PostedEntry } from '../ports/ledger.port.ts';

/**
 * The book every service moves money through. Its statements are the same on both engines, so one
 * stateless instance serves all (the chat ledger, which is per engine and keeps state, is built by
 * gateway.ts and given to ChatService).
 */
export const ledgerBook: LedgerBook = kyselyLedgerBook;

/**
 * Writes one ledger entry and changes the balance by the same amount, in the caller's transaction
 * (LedgerBook.post): never below what is held, once per (kind, reference).
 */
export function postLedgerEntry(tx: Executor, movement: LedgerMovement, now?: number): Promise<PostedEntry> {
  return ledgerBook.post(tx, movement, now);
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
