import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, type KyselyConfig } from 'kysely';
import type { Executor, Schema } from '../schema.ts';

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

/**
 * The Kysely instance of a SQLite file, carrying its fast reader explicitly (open-database.ts builds
 * it). Its transactions are plain Kysely transactions: they read on the writer connection, where their
 * own writes are.
 */
export class SqliteKysely extends Kysely<Schema> {
  readonly fastReader: SqliteFastReader | undefined;

  constructor(config: KyselyConfig, fastReader: SqliteFastReader | undefined) {
    super(config);
    this.fastReader = fastReader;
  }
}

/** The fast reader of `db` when it is a SQLite file's own instance (not one of its transactions). */
export function fastReaderOf(db: Executor): SqliteFastReader | undefined {
  return db instanceof SqliteKysely ? db.fastReader : undefined;
}
