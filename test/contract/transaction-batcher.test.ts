import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/db/migrate.ts';
import { type DatabaseHandle, openDatabase } from '../../src/adapters/db/open-database.ts';
import { AppError } from '../../src/domain/errors.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { postLedgerEntry } from '../../src/adapters/db/ledger/ledger-posting.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { TransactionBatcher } from '../../src/adapters/db/transaction-batcher.ts';

describe('TransactionBatcher (group commit)', () => {
  let dir: string;
  let handle: DatabaseHandle;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-batch-'));
    handle = openDatabase({ databaseUrl: undefined, dataDir: dir });
    await migrate(handle);
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const debit = (userId: string, reference: string, amountMicro: number) => (tx: Parameters<typeof postLedgerEntry>[0]) =>
    postLedgerEntry(tx, { userId, kind: 'chat_hold', reference, amountMicro: -amountMicro });

  test('items of one turn share a transaction and see each other: guarded debits stay exact', async () => {
    const user = await createUser(handle.db, { email: null, balanceMicro: 25 });
    const batcher = new TransactionBatcher(handle.db);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => batcher.run(user.id, debit(user.id, `b1-${i}`, 10), true)));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    assert.ok(outcomes[2]?.status === 'rejected' && outcomes[2].reason instanceof AppError && outcomes[2].reason.code === 'insufficient_balance');
    const row = await handle.db.selectFrom('users').select('balance_micro').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(Number(row.balance_micro), 5);
    assert.deepEqual(await verifyLedger(handle.db), []);
  });

  test('a lingering write waits for the next write and shares its transaction; alone, it is written after a few ms', async () => {
    const user = await createUser(handle.db, { email: null, balanceMicro: 100 });
    const batcher = new TransactionBatcher(handle.db);
    const transactions: object[] = [];
    const numbered = (reference: string) => async (tx: Parameters<typeof postLedgerEntry>[0]) => {
      await debit(user.id, reference, 1)(tx);
      transactions.push(tx);
    };
    let lingerDone = false;
    const lingering = batcher.run(user.id, numbered('l-1'), false, true).then(() => {
      lingerDone = true;
    });
    // The lingering write has not been written on its own a turn later.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lingerDone, false);
    await batcher.run(user.id, numbered('e-1'));
    // Written in the eager write's batch (the same transaction object), before it.
    assert.equal(lingerDone, true);
    assert.equal(transactions.length, 2);
    assert.equal(transactions[0], transactions[1]);
    await lingering;

    // Once the writer is idle, a lingering write alone waits for its timer.
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    await batcher.run(user.id, numbered('l-2'), false, true);
    const waited = performance.now() - started;
    assert.ok(waited >= 3 && waited < 10_000, `a lone lingering write waited ${waited} ms`);
    assert.deepEqual(await verifyLedger(handle.db), []);
  });

  test('an unexpected error rolls the batch back and every item is retried alone', async () => {
    const user = await createUser(handle.db, { email: null, balanceMicro: 100 });
    const batcher = new TransactionBatcher(handle.db);
    const outcomes = await Promise.allSettled([
      batcher.run(user.id, debit(user.id, 'b2-a', 10)),
      batcher.run(user.id, async (tx) => {
        await debit(user.id, 'b2-b', 10)(tx);
        throw new Error('boom');
      }),
      batcher.run(user.id, debit(user.id, 'b2-c', 10)),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    const refs = (await handle.db.selectFrom('ledger_entries').select('reference').where('user_id', '=', user.id).where('kind', '=', 'chat_hold').execute()).map((r) => r.reference);
    assert.deepEqual(refs.sort(), ['b2-a', 'b2-c'], 'the failed item wrote nothing');
    assert.deepEqual(await verifyLedger(handle.db), []);
  });

  test('a non-refusable AppError also rolls back its own writes', async () => {
    const user = await createUser(handle.db, { email: null, balanceMicro: 100 });
    const batcher = new TransactionBatcher(handle.db);
    const outcomes = await Promise.allSettled([
      batcher.run(user.id, async (tx) => {
        await debit(user.id, 'b3-a', 10)(tx);
        throw new AppError('conflict', 'after a write');
      }),
      batcher.run(user.id, debit(user.id, 'b3-b', 10)),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'fulfilled']);
    const row = await handle.db.selectFrom('users').select('balance_micro').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(Number(row.balance_micro), 90);
  });
});
