import type { Kysely } from 'kysely';
import type { LedgerMovement, PostedEntry } from '../../../ports/ledger.port.ts';
import type { Executor, Schema } from '../schema.ts';
import { kyselyLedgerBook } from './ledger-book.ts';

/**
 * Writes one ledger entry and changes the balance by the same amount, in the caller's transaction
 * (LedgerBook.post): never below what is held, once per (kind, reference). For the tools and tests
 * that hold the raw database; services take the LedgerBook port instead.
 */
export function postLedgerEntry(tx: Executor, movement: LedgerMovement, now?: number): Promise<PostedEntry> {
  return kyselyLedgerBook.post(tx, movement, now);
}

/** Runs postLedgerEntry in its own transaction. */
export function postLedgerEntryAlone(db: Kysely<Schema>, movement: LedgerMovement): Promise<PostedEntry> {
  return db.transaction().execute((tx) => postLedgerEntry(tx, movement));
}
