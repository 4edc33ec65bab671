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
