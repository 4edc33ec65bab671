/**
 * The SQLite chat ledger's two ways to write a hold (src/adapters/db/ledger/sqlite-chat-ledger.thread.ts): on the event loop while
 * the process is quiet and the write lock is free, on the writer thread otherwise. A hold written on
 * the event loop is committed before hold() returns its promise; one sent to the thread is not.
 */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pino } from 'pino';
import { createUser } from '../../../src/adapters/db/stores/account-store.ts';
import { createChatLedger } from '../../../src/adapters/db/ledger/chat-ledger-factory.ts';
import type { ChatLedger } from '../../../src/ports/ledger.port.ts';
import { verifyLedger } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import { chatOutcome, heldRequest } from '../../support/chat-ledger-fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../../support/databases.ts';

describe('SQLite chat ledger: holds on the event loop when quiet', () => {
  let database: TestDatabase;
  let dispose: () => Promise<void>;
  let ledger: ChatLedger;
  before(async () => {
    ({ db: database, dispose } = await createTestDatabase('sqlite'));
    ledger = createChatLedger(database.handle, pino({ level: 'silent' }));
  });
  after(async () => {
    await ledger.close();
    await dispose();
  });

  const heldMicro = async (userId: string): Promise<number> =>
    Number((await database.handle.db.selectFrom('users').select('held_micro').where('id', '=', userId).executeTakeFirstOrThrow()).held_micro);

  test('a quiet hold is committed before hold() returns; with two open, the next goes to the thread', async () => {
    const user = await createUser(database.handle.db, { balanceMicro: 100_000 });
    const [a, b, c] = [heldRequest(user.id, 1_000), heldRequest(user.id, 2_000), heldRequest(user.id, 4_000)];
    const first = ledger.hold(a);
    assert.equal(await heldMicro(user.id), 1_000, 'written on the event loop, before any await');
    const second = ledger.hold(b);
    assert.equal(await heldMicro(user.id), 3_000, 'one other request open: still quiet');
    const third = ledger.hold(c);
    assert.equal(await heldMicro(user.id), 3_000, 'two open: this one waits for the writer thread');
    await Promise.all([first, second, third]);
    assert.equal(await heldMicro(user.id), 7_000);
    for (const r of [a, b, c]) assert.equal(await ledger.settle(r, chatOutcome(100), 'gpt-5.4-mini', false), 'done');
    // All settled: quiet again.
    const d = heldRequest(user.id, 500);
    const fourth = ledger.hold(d);
    assert.equal(await heldMicro(user.id), 500);
    await fourth;
    assert.equal(await ledger.settle(d, chatOutcome(0), 'gpt-5.4-mini', false), 'done');
    assert.deepEqual(await verifyLedger(database.handle.db), []);
  });

  test('a quiet hold that finds the write lock taken waits for it on the thread, without blocking the event loop', async () => {
    const user = await createUser(database.handle.db, { balanceMicro: 100_000 });
    const lock = database.handle.sqliteFile?.lock;
    assert.ok(lock);
    assert.ok(lock.tryAcquire(), 'the test takes the write lock, as a main-thread transaction would');
    let done = false;
    const request = heldRequest(user.id, 5_000);
    const holding = ledger.hold(request).then(() => {
      done = true;
    });
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    assert.equal(done, false, 'waits while the lock is held');
    lock.release();
    await holding;
    assert.equal(await heldMicro(user.id), 5_000);
    assert.equal(await ledger.settle(request, chatOutcome(10), 'gpt-5.4-mini', false), 'done');
  });

  test("another process's write transaction sends the hold to the thread instead of the busy handler", async () => {
    const user = await createUser(database.handle.db, { balanceMicro: 100_000 });
    // Another connection, as the CLI in another process: SQLite's own lock, not the process's write lock.
    const other = new DatabaseSync(database.handle.sqliteFile?.path ?? '');
    other.exec('begin immediate');
    let done = false;
    const request = heldRequest(user.id, 6_000);
    const called = performance.now();
    const holding = ledger.hold(request).then(() => {
      done = true;
    });
    // Sleeping in the busy handler would hold this call for its 10 s time-out.
    assert.ok(performance.now() - called < 5_000, 'hold() returned at once');
    // The event loop turns: the hold is not sleeping in SQLite's busy handler on this thread.
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    assert.equal(done, false, 'waits while the other connection writes');
    other.exec('commit');
    other.close();
    await holding;
    assert.equal(await heldMicro(user.id), 6_000);
    assert.equal(await ledger.settle(request, chatOutcome(10), 'gpt-5.4-mini', false), 'done');
    assert.deepEqual(await verifyLedger(database.handle.db), []);
  });
});
