/**
 * The SQLite database file beneath a database handle (open-database.ts, `DatabaseHandle.sqliteFile`),
 * and the process's write lock on it, for the one writer that uses a connection of its own on another
 * thread (the chat ledger's writer thread, adapters/db/ledger/sqlite-chat-ledger.thread.ts). Passed
 * explicitly to what needs it; undefined on PostgreSQL and for an in-memory database.
 */
import type { SqliteWriteLock } from './sqlite-write-lock.ts';

export interface SqliteFile {
  path: string;
  lock: SqliteWriteLock;
}
