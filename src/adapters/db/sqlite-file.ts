/**
 * The SQLite database file beneath a Kysely instance, and the process's write lock on it, for the one
 * writer that uses a connection of its own on another thread (the chat ledger's writer thread,
 * adapters/db/ledger/sqlite-chat-ledger.thread.ts). Undefined on PostgreSQL.
 */
import type { SqliteWriteLock } from './sqlite-write-lock.ts';

export interface SqliteFile {
  path: string;
  lock: SqliteWriteLock;
}

const files = new WeakMap<object, SqliteFile>();

export function attachSqliteFile(db: object, file: SqliteFile): void {
  files.set(db, file);
}

export function sqliteFileOf(db: object): SqliteFile | undefined {
  return files.get(db);
}
