import type { StoreTransaction } from './store-transaction.port.ts';

/**
 * The group commit of a hot path's short transactions (a generation's create): work that arrives
 * together shares one commit, each item still all-or-nothing. `key`: the row it locks first (the
 * user id). `refusable`: the work throws AppErrors only before its first write, so a refusal fails
 * that item alone. `linger`: nobody waits for it, so it may wait briefly to share a commit.
 */
export interface WriteBatcher {
  run<T>(key: string, work: (tx: StoreTransaction) => Promise<T>, refusable?: boolean, linger?: boolean): Promise<T>;
}
