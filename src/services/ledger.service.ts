import { kyselyLedgerBook } from '../adapters/db/ledger/ledger-book.ts';
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

export { type LedgerMismatch, verifyLedger } from '../adapters/db/ledger/ledger-checks.ts';
