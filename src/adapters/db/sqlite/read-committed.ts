import type { Compilable } from 'kysely';
import { fastReaderOf } from './fast-reader.ts';
import type { Executor } from '../schema.ts';

/**
 * Runs a read so that it sees only committed data. On SQLite the connection's transactions span
 * awaits, so a plain read on it may see another request's uncommitted write (which could still roll
 * back); the fast reader connection (WAL) sees only commits. Inside a transaction, or on PostgreSQL,
 * the query runs where it was built.
 */
export async function readCommitted<R>(db: Executor, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  const reader = fastReaderOf(db);
  if (reader) return reader.all<R>(compiled.sql, compiled.parameters);
  return (await db.executeQuery<R>(compiled)).rows;
}
