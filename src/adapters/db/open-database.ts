import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { makePrivateDirSync, makePrivateFileSync } from '../fs/private-files.ts';
import { guardedPostgresPool } from './postgres-pool.ts';
import type { Schema } from './schema.ts';
import { SqliteFastReader, SqliteKysely } from './sqlite/fast-reader.ts';
import { SqliteCheckpointer } from './sqlite/sqlite-checkpointer.ts';
import { openSqliteFile } from './sqlite/sqlite-connection.ts';
import { NodeSqliteDialect } from './sqlite/sqlite-dialect.ts';
import type { SqliteFile } from './sqlite/sqlite-file.ts';
import { SqliteWriteLock } from './sqlite/sqlite-write-lock.ts';

export type Dialect = 'sqlite' | 'postgres';

/** The store's connection: one Kysely instance plus what migrations need beneath it. */
export interface DatabaseHandle {
  readonly db: Kysely<Schema>;
  readonly dialect: Dialect;
  /** The SQLite file and its write lock, for a writer on another thread; undefined on PostgreSQL and in memory. */
  readonly sqliteFile: SqliteFile | undefined;
  /** Runs a multi-statement SQL script (migrations). */
  execScript(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… for PostgreSQL; otherwise SQLite under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** SQLite only: a file name under dataDir, or ':memory:'. */
  sqliteFile?: string;
  /** PostgreSQL only: a schema to use as search_path (tests isolate themselves this way). */
  postgresSchema?: string;
  postgresPoolSize?: number;
  /** PostgreSQL only: told when a connection dies (a restart, a failover, an idle reaper); the pool replaces it. */
  onConnectionError?: (error: Error) => void;
}

const INT8_OID = 20;
const CONNECT_TIMEOUT_MS = 5_000;

class BoundedConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig = {}) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}
const NUMERIC_OID = 1700;

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options);
}

function openSqlite(options: DatabaseOptions): DatabaseHandle {
  const file = options.sqliteFile ?? 'switchboard.db';
  let path = file;
  if (file !== ':memory:') {
    makePrivateDirSync(options.dataDir);
    path = join(options.dataDir, file);
    // Before SQLite creates it 0644: its -wal and -shm files take the database file's mode.
    makePrivateFileSync(path, [`${path}-wal`, `${path}-shm`]);
  }
  const database = openSqliteFile(path);
  const lock = new SqliteWriteLock();
  // An in-memory database exists only on its own connection: no second reader, no writer thread there.
  const reader = file === ':memory:' ? undefined : new SqliteFastReader(path);
  const db = new SqliteKysely({ dialect: new NodeSqliteDialect(database, lock) }, reader);
  const sqliteFile: SqliteFile | undefined = file === ':memory:' ? undefined : { path, lock };
  let checkpointer: SqliteCheckpointer | undefined;
  if (file !== ':memory:') {
    database.exec('pragma wal_autocheckpoint = 0');
    checkpointer = new SqliteCheckpointer(path);
  }
  return {
    db,
    dialect: 'sqlite',
    sqliteFile,
    async execScript(sql) {
      database.exec(sql);
    },
    async close() {
      reader?.close();
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.postgresPoolSize ?? 20,
    // Money and times are BIGINT; they fit a double exactly (micro-USD up to 9e15), so read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
    ...(options.postgresSchema ? { options: `-c search_path=${options.postgresSchema}` } : {}),
    // Opening a connection to a server that does not answer is bounded (requests answer 503 instead of
    // hanging); waiting for a free connection of a busy pool is not (that is load, not an outage).
    Client: BoundedConnectClient,
    // Dead peers (a failover without a reset) are noticed by TCP keep-alive instead of hanging until a query.
    keepAlive: true,
  });
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: guardedPostgresPool(pool, options.onConnectionError ?? (() => {})) }) });
  return {
    db,
    dialect: 'postgres',
    sqliteFile: undefined,
    async execScript(sql) {
      await pool.query(sql);
    },
    async close() {
      await db.destroy();
    },
  };
}
