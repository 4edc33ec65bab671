/**
 * The SQLite write connection beneath a Kysely instance, for the few hot-path writers that run their
 * statements synchronously on it (chat-ledger.ts): inside a transaction opened by Kysely on that same
 * single connection, a prepared statement run directly is part of it, without the promise, the
 * connection lock and the result wrapping that Kysely spends on each statement. Only call it from work
 * that runs inside such a transaction (TransactionBatcher items): outside one, the statement would
 * commit on its own, or land in another caller's open transaction.
 */
import type { DatabaseSync } from 'node:sqlite';

const writers = new WeakMap<object, DatabaseSync>();

export function attachSqliteWriter(db: object, database: DatabaseSync): void {
  writers.set(db, database);
}

/** The connection, for a Kysely instance over node:sqlite; undefined on PostgreSQL. */
export function sqliteWriterOf(db: object): DatabaseSync | undefined {
  return writers.get(db);
}
