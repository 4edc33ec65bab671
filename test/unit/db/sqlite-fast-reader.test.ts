/**
 * The SQLite handle names its fast reader explicitly (src/adapters/db/sqlite/fast-reader.ts,
 * SqliteKysely): compiled-once reads on the handle itself go to the reader and see committed data
 * only; inside a transaction they run on the writer connection and see the transaction's own writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findUserSummary } from '../../../src/adapters/db/repositories/users.repository.ts';
import { fastReaderOf } from '../../../src/adapters/db/sqlite/fast-reader.ts';
import { createUser } from '../../../src/adapters/db/stores/account-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/databases.ts';

describe('SQLite fast reader, passed with the handle', () => {
  let database: TestDatabase;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ db: database, dispose } = await createTestDatabase('sqlite'));
  });
  after(() => dispose());

  test('the handle carries its reader and its file; its transactions have no reader', async () => {
    const db = database.handle.db;
    assert.ok(fastReaderOf(db));
    assert.ok(database.handle.sqliteFile?.path.endsWith('switchboard.db'));
    await db.transaction().execute(async (tx) => {
      assert.equal(fastReaderOf(tx), undefined);
    });
  });

  test('a read on the handle does not see a write not yet committed; one in the transaction does', async () => {
    const db = database.handle.db;
    const user = await createUser(db, { balanceMicro: 1_000 });
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ balance_micro: 2_000 }).where('id', '=', user.id).execute();
      assert.equal((await findUserSummary(db, user.id))?.balance_micro, 1_000);
      assert.equal((await findUserSummary(tx, user.id))?.balance_micro, 2_000);
    });
    assert.equal((await findUserSummary(db, user.id))?.balance_micro, 2_000);
  });
});
