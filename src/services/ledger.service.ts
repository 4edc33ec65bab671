import { kyselyLedgerBook } from '../adapters/db/ledger/ledger-book.ts';
import type { LedgerBook } from '../ports/ledger.port.ts';

export type { LedgerMovement, PostedEntry } from '../ports/ledger.port.ts';
export { postLedgerEntry, postLedgerEntryAlone } from '../adapters/db/ledger/ledger-posting.ts';
export { type LedgerMismatch, verifyLedger } from '../adapters/db/ledger/ledger-checks.ts';

/**
 * Kept only until the branches that still import it are merged (issue 31): services take the
 * LedgerBook port from the composition root, tests import from src/adapters/db/ledger/.
 */
export const ledgerBook: LedgerBook = kyselyLedgerBook;
