import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteWriteLock } from './sqlite-write-lock.ts';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from 'kysely';

type Bindable = null | number | bigint | string | Uint8Array;

/**
 * Kysely over Node's built-in `node:sqlite`. Kysely's own SqliteDialect expects better-sqlite3's
 * shape; this adapter also caches prepared statements (preparing dominates a point read) and starts
 * write transactions with BEGIN IMMEDIATE so that a second process (the CLI) waits instead of failing
 * on a lock upgrade. Every write (a transaction, or a single writing statement outside one) first
 * takes the process's SqliteWriteLock, which the chat ledger's writer thread takes too, so that this
 * thread never meets that one's write lock in SQLite's sleeping busy handler.
 */
export class NodeSqliteDialect implements Dialect {
  private readonly database: DatabaseSync;
  private readonly lock: SqliteWriteLock;
  constructor(database: DatabaseSync, lock: SqliteWriteLock) {
    this.database = database;
    this.lock = lock;
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new NodeSqliteDriver(this.database, this.lock);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's introspector takes any Kysely instance.
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}

class NodeSqliteDriver implements Driver {
  private readonly connection: NodeSqliteConnection;
  private readonly database: DatabaseSync;
  private readonly lock: SqliteWriteLock;
  constructor(database: DatabaseSync, lock: SqliteWriteLock) {
    this.database = database;
    this.lock = lock;
    this.connection = new NodeSqliteConnection(database, lock);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await this.lock.acquire();
    try {
      this.database.exec('begin immediate');
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }
  async commitTransaction(_connection: DatabaseConnection): Promise<void> {
    try {
      this.database.exec('commit');
    } finally {
      // A failed COMMIT leaves the transaction open for the ROLLBACK that follows.
      if (!this.database.isTransaction) this.lock.release();
    }
  }
  async rollbackTransaction(_connection: DatabaseConnection): Promise<void> {
    try {
      // SQLite may have rolled back already (SQLITE_FULL does): a ROLLBACK then fails with "no
      // transaction is active", and that error would replace the one that tells what went wrong.
      if (this.database.isTransaction) this.database.exec('rollback');
    } finally {
      this.lock.release();
    }
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    if (this.database.isOpen) this.database.close();
  }
}

interface Prepared {
  statement: StatementSync;
  /** It returns rows. */
  reader: boolean;
  /** It may write (anything but a plain SELECT): outside a transaction it takes the write lock. */
  writes: boolean;
}

const PLAIN_SELECT = /^\s*select\b/i;

class NodeSqliteConnection implements DatabaseConnection {
  private readonly database: DatabaseSync;
  private readonly lock: SqliteWriteLock;
  private readonly statements = new Map<string, Prepared>();

  constructor(database: DatabaseSync, lock: SqliteWriteLock) {
    this.database = database;
    this.lock = lock;
  }

  private prepare(sql: string): Prepared {
    let cached = this.statements.get(sql);
    if (!cached) {
      const statement = this.database.prepare(sql);
      cached = { statement, reader: statement.columns().length > 0, writes: !PLAIN_SELECT.test(sql) };
      if (this.statements.size > 2000) this.statements.clear();
      this.statements.set(sql, cached);
    }
    return cached;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.prepare(compiledQuery.sql);
    if (!prepared.writes || this.database.isTransaction) return this.run<R>(prepared, compiledQuery);
    await this.lock.acquire();
    try {
      return this.run<R>(prepared, compiledQuery);
    } finally {
      this.lock.release();
    }
  }

  private run<R>({ statement, reader }: Prepared, compiledQuery: CompiledQuery): QueryResult<R> {
    const parameters = compiledQuery.parameters.map(toBindable);
    if (reader) return { rows: statement.all(...parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { statement } = this.prepare(compiledQuery.sql);
    for (const row of statement.iterate(...compiledQuery.parameters.map(toBindable))) {
      yield { rows: [row as R] };
    }
  }
}

function toBindable(value: unknown): Bindable {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.getTime();
  return JSON.stringify(value);
}

