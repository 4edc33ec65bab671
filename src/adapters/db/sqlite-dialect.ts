import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
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
 * on a lock upgrade.
 */
export class NodeSqliteDialect implements Dialect {
  private readonly database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.database = database;
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new NodeSqliteDriver(this.database);
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
  constructor(database: DatabaseSync) {
    this.database = database;
    this.connection = new NodeSqliteConnection(database);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    if (this.database.isOpen) this.database.close();
  }
}

class NodeSqliteConnection implements DatabaseConnection {
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, { statement: StatementSync; reader: boolean }>();

  constructor(database: DatabaseSync) {
    this.database = database;
  }

  private prepare(sql: string): { statement: StatementSync; reader: boolean } {
    let cached = this.statements.get(sql);
    if (!cached) {
      const statement = this.database.prepare(sql);
      cached = { statement, reader: statement.columns().length > 0 };
      if (this.statements.size > 2000) this.statements.clear();
      this.statements.set(sql, cached);
    }
    return cached;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { statement, reader } = this.prepare(compiledQuery.sql);
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

/** The WAL file's size after it starts over (sqlite-checkpointer.ts checkpoints above 4 MiB). */
export const WAL_SIZE_LIMIT_BYTES = 1024 * 1024;

export function openSqliteFile(path: string): DatabaseSync {
  const database = new DatabaseSync(path, { timeout: 10_000 });
  database.exec('pragma journal_mode = wal');
  database.exec('pragma synchronous = normal');
  database.exec('pragma foreign_keys = on');
  database.exec('pragma temp_store = memory');
  database.exec('pragma cache_size = -65536');
  database.exec('pragma wal_autocheckpoint = 10000');
  // Once a checkpoint has copied the whole WAL back, the next write starts the WAL over and cuts the
  // file to 1 MiB. Without a limit the file keeps its largest size for ever, and the checkpointer's
  // "has the WAL grown?" test (its size) would be true at every tick.
  database.exec(`pragma journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  return database;
}
