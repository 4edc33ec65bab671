/**
 * Recognises a unique-constraint violation by the engine's error code (never by message text):
 * PostgreSQL SQLSTATE 23505, SQLite extended code SQLITE_CONSTRAINT_UNIQUE (2067) or
 * SQLITE_CONSTRAINT_PRIMARYKEY (1555).
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; errcode?: unknown };
  if (e.code === '23505') return true;
  return e.errcode === 2067 || e.errcode === 1555;
}

/** SQLite's primary result code SQLITE_FULL: "database or disk is full". */
const SQLITE_FULL = 13;
/** PostgreSQL's SQLSTATE disk_full. */
const POSTGRES_DISK_FULL = '53100';
/** The file system's "no space left" and "quota exceeded" (the local blob store's writes, SQLite's temp files). */
const FS_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Whether a failure means the disk under the store is full, read from codes along the `cause` chain
 * (never from message text): SQLite SQLITE_FULL (any extended code of it), PostgreSQL 53100, ENOSPC or
 * EDQUOT from a file write. Nothing about the request is wrong, and nothing was written: the HTTP layer
 * answers 507 with Retry-After, readiness turns 503 (store-full-watch.ts), and a worker retries.
 */
export function isStoreFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const e = current as { code?: unknown; errcode?: unknown; cause?: unknown };
    if (e.code === POSTGRES_DISK_FULL || (typeof e.code === 'string' && FS_FULL_CODES.has(e.code))) return true;
    if (typeof e.errcode === 'number' && (e.errcode & 0xff) === SQLITE_FULL) return true;
    current = e.cause;
  }
  return false;
}
