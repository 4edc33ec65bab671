import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DatabaseHandle } from './open-database.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any constant; it only has to be the same in every process that migrates this database. */
const PG_MIGRATION_LOCK = 7_240_531;

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

/** Reads migrations/<dialect>/NNN_name.sql in order. */
export async function listMigrations(dialect: DatabaseHandle['dialect']): Promise<MigrationFile[]> {
  const dir = join(MIGRATIONS_DIR, dialect);
  const names = (await readdir(dir)).filter((n) => /^\d{3}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(
    names.map(async (file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: await readFile(join(dir, file), 'utf8'),
    })),
  );
}

/**
 * Applies the migrations this database has not seen, each in its own transaction. Safe to run from
 * several processes at once: PostgreSQL takes an advisory lock, SQLite an immediate write lock.
 */
export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  const migrations = await listMigrations(handle.dialect);
  const applied: string[] = [];
  const createTable =
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)';
  if (handle.dialect === 'postgres') {
    await handle.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${PG_MIGRATION_LOCK})`.execute(conn);
      try {
        await sql.raw(createTable).execute(conn);
        const done = new Set((await conn.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version));
        for (const m of migrations) {
          if (done.has(m.version)) continue;
          await conn.transaction().execute(async (tx) => {
            await sql.raw(m.sql).execute(tx);
            await tx.insertInto('schema_migrations').values({ version: m.version, name: m.name, applied_at: Date.now() }).execute();
          });
          applied.push(`${m.version}_${m.name}`);
        }
      } finally {
        await sql`SELECT pg_advisory_unlock(${PG_MIGRATION_LOCK})`.execute(conn);
      }
    });
    return applied;
  }
  await handle.execScript(createTable);
  for (const m of migrations) {
    const done = await handle.db.selectFrom('schema_migrations').select('version').where('version', '=', m.version).executeTakeFirst();
    if (done) continue;
    // SQLite scripts run through exec (several statements); the write lock makes check-and-apply atomic.
    await handle.execScript('BEGIN IMMEDIATE');
    try {
      const again = await handle.db.selectFrom('schema_migrations').select('version').where('version', '=', m.version).executeTakeFirst();
      if (!again) {
        await handle.execScript(m.sql);
        await handle.db.insertInto('schema_migrations').values({ version: m.version, name: m.name, applied_at: Date.now() }).execute();
        applied.push(`${m.version}_${m.name}`);
      }
      await handle.execScript('COMMIT');
    } catch (error) {
      await handle.execScript('ROLLBACK');
      throw error;
    }
  }
  return applied;
}
