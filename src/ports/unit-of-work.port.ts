import type { StoreTransaction } from './store-transaction.port.ts';

/**
 * The store's transactions as services see them. A store port's methods take the transaction first
 * (`store.findRun(tx, id)`), as the ledger book does: `direct` for a statement on its own, or the
 * `tx` of `transaction(work)` for statements that commit together (a state change, its ledger entry,
 * its events and its jobs). Nothing outside src/adapters/db knows which database is behind it.
 */
export interface UnitOfWork {
  /** The store outside any transaction: each statement commits on its own. */
  readonly direct: StoreTransaction;
  /** Runs `work` in one transaction: all of it commits, or (when it throws) none of it. */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
}
