import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { migrate } from '../../src/adapters/db/migrate.ts';
import { type DatabaseHandle, openDatabase } from '../../src/adapters/db/open-database.ts';
import { serviceSkipReason, TEST_DATABASE_URL } from './services.ts';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface TestDatabase {
  kind: DatabaseKind;
  /** Set once `before` ran. */
  handle: DatabaseHandle;
  /** For code that opens its own connections (a second process, the CLI): env that reaches this database. */
  env: Record<string, string>;
}

/**
 * A fresh, migrated database: SQLite in a temp dir, or a new PostgreSQL schema (dropped afterwards),
 * so test files can run in parallel.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<{ db: TestDatabase; dispose: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sb-test-'));
    const handle = openDatabase({ databaseUrl: undefined, dataDir: dir });
    await migrate(handle);
    return {
      db: { kind, handle, env: { DATA_DIR: dir } },
      dispose: async () => {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const handle = openDatabase({ databaseUrl: TEST_DATABASE_URL, dataDir: tmpdir(), postgresSchema: schema });
  await migrate(handle);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    db: { kind, handle, env: { DATABASE_URL: url.toString(), PG_SCHEMA: schema } },
    dispose: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

/**
 * Registers `body` once per database: always on SQLite, and on PostgreSQL when it is reachable
 * (skipped with a message otherwise, or failing under SWITCHBOARD_REQUIRE_SERVICES=1).
 */
export function describeEachDatabase(name: string, body: (db: TestDatabase) => void): void {
  for (const kind of ['sqlite', 'postgres'] as const) {
    describe(`${name} [${kind}]`, async () => {
      const skip = kind === 'postgres' ? await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL) : undefined;
      if (skip) {
        describe('skipped', { skip }, () => {});
        return;
      }
      const holder = { kind } as TestDatabase;
      let dispose: (() => Promise<void>) | undefined;
      before(async () => {
        const created = await createTestDatabase(kind);
        Object.assign(holder, created.db);
        dispose = created.dispose;
      });
      after(async () => {
        await dispose?.();
      });
      body(holder);
    });
  }
}
