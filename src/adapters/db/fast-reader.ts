import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Executor } from './schema.ts';

type Bindable = null | number | bigint | string | Uint8Array;

/**
 * A second SQLite connection for the hottest point reads (GET /user/me, GET /task/status). It runs a
 * statement synchronously, so a read does not queue behind the writer connection's open transactions
 * (which span awaits), and in WAL mode it sees only committed data — never another request's
 * uncommitted write on the shared writer connection. PostgreSQL needs none of this: its reads use the
 * pool.
 */
export class SqliteFastReader {
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(path: string) {
    this.database = new DatabaseSync(path, { timeout: 10_000 });
    this.database.exec('pragma query_only = on');
  }

  all<R>(sql: string, parameters: readonly unknown[]): R[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement.all(...(parameters as Bindable[])) as R[];
  }

  close(): void {
    if (this.database.isOpen) this.database.close();
  }
}

const readers = new WeakMap<object, SqliteFastReader>();

/** Lets `compiledOnce` queries on this connection (not on its transactions) use the reader. */
export function attachFastReader(db: Executor, reader: SqliteFastReader): void {
  readers.set(db, reader);
}

export function fastReaderOf(db: Executor): SqliteFastReader | undefined {
  return readers.get(db);
}
