import { PostgresAdapter } from 'kysely';
import type { Executor } from './schema.ts';

/**
 * Whether a connection (or transaction) talks to PostgreSQL. For the few statements written per
 * engine: PostgreSQL can do several changes in one statement (data-modifying WITH), which saves a
 * round trip; SQLite cannot, and has no round trips to save.
 */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
