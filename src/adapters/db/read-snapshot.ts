import type { Kysely, Transaction } from 'kysely';
import { isPostgres } from './dialect-of.ts';
import type { Schema } from './schema.ts';

/**
 * Runs several reads that make one view (a run with its operations, a task with its attempts) on one
 * snapshot of the store, so the view never shows a state that never existed, such as a run's settled
 * total with an operation that settled after it was read (issue 17). PostgreSQL: a read-only
 * REPEATABLE READ transaction (one snapshot for all its statements, no locks taken). SQLite: a
 * transaction on the connection, which holds its single writer off for the few reads, and sees
 * committed rows only.
 */
export function readSnapshot<T>(db: Kysely<Schema>, reads: (tx: Transaction<Schema>) => Promise<T>): Promise<T> {
  const builder = isPostgres(db) ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : db.transaction();
  return builder.execute(reads);
}
