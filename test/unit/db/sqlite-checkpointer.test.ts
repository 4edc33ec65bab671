import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteCheckpointer } from '../../../src/adapters/db/sqlite/sqlite-checkpointer.ts';
import { openSqliteFile, WAL_SIZE_LIMIT_BYTES } from '../../../src/adapters/db/sqlite/sqlite-connection.ts';

test('the checkpointer copies a grown WAL back, and the next write starts the WAL over at the size limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-wal-'));
  const path = join(dir, 'x.db');
  const database = openSqliteFile(path);
  database.exec('pragma wal_autocheckpoint = 0');
  const walSize = () => statSync(`${path}-wal`).size;
  const checkpointer = new SqliteCheckpointer(path, 20, 2 * WAL_SIZE_LIMIT_BYTES);
  try {
    database.exec('create table t (id integer primary key, v blob)');
    const insert = database.prepare('insert into t (v) values (?)');
    const blob = Buffer.alloc(3000);
    database.exec('begin');
    for (let i = 0; i < 2000; i++) insert.run(blob);
    database.exec('commit');
    assert.ok(walSize() > 4 * WAL_SIZE_LIMIT_BYTES, `the WAL holds ${walSize()} bytes`);

    // Once the worker has checkpointed everything, a write starts the WAL over and cuts the file.
    const deadline = Date.now() + 10_000;
    while (walSize() > WAL_SIZE_LIMIT_BYTES) {
      assert.ok(Date.now() < deadline, `the WAL still holds ${walSize()} bytes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      insert.run(blob);
    }
    assert.equal((database.prepare('select count(*) as n from t').get() as { n: number }).n > 2000, true);
  } finally {
    await checkpointer.stop();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
