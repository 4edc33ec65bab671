import { DatabaseSync } from 'node:sqlite';

/** The WAL file's size after it starts over (sqlite-checkpointer.ts checkpoints above 4 MiB). */
export const WAL_SIZE_LIMIT_BYTES = 1024 * 1024;

/**
 * Opens a connection to the SQLite file with the settings every writing connection of ours uses (the
 * main thread's, the chat ledger's writer thread's): WAL; synchronous NORMAL (a crash of the process
 * loses no commit, a power cut may lose the last ones, neither corrupts); foreign keys; and a 10 s busy
 * timeout for other processes (the CLI). No Kysely here: the writer thread loads only this.
 */
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
