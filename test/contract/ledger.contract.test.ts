import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findBalanceMismatches, listEntries } from '../../src/adapters/db/ledger/ledger.repository.ts';
import { findUserById } from '../../src/adapters/db/repositories/users.repository.ts';
import { AppError } from '../../src/domain/errors.ts';
import { createUser } from '../../src/services/accounts.service.ts';
import { postLedgerEntry, postLedgerEntryAlone, verifyLedger } from '../../src/services/ledger.service.ts';
import { describeEachDatabase } from '../support/databases.ts';

describeEachDatabase('ledger', (t) => {
  test('a credit and a debit change the balance and leave entries that sum to it', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 1_000_000 });
    await postLedgerEntryAlone(db, { userId: user.id, kind: 'credit', reference: `${user.id}:a`, amountMicro: 250_000 });
    await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_1', amountMicro: -1_100_000 });
    const after = await findUserById(db, user.id);
    assert.equal(after?.balance_micro, 150_000);
    const entries = await listEntries(db, user.id, 10);
    assert.equal(entries.length, 3);
    assert.equal(entries.reduce((sum, e) => sum + e.amount_micro, 0), 150_000);
    assert.equal(entries[0]?.balance_after_micro, 150_000);
    assert.deepEqual(await findBalanceMismatches(db), []);
  });

  test('a repeated (kind, reference) is written once and returns the first entry', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 500_000 });
    const first = await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_dup', amountMicro: -200_000 });
    const second = await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_dup', amountMicro: -200_000 });
    assert.equal(first.created, true);
    assert.equal(second.created, false);
    assert.equal(second.entry.id, first.entry.id);
    assert.equal((await findUserById(db, user.id))?.balance_micro, 300_000);
  });

  test('a duplicate is recognised even when the balance could no longer pay for it', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 100_000 });
    await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_all', amountMicro: -100_000 });
    const again = await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_all', amountMicro: -100_000 });
    assert.equal(again.created, false);
    assert.equal((await findUserById(db, user.id))?.balance_micro, 0);
  });

  test('an overdraft is refused with insufficient_balance and changes nothing', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 10_000 });
    await assert.rejects(
      postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_big', amountMicro: -10_001 }),
      (error: unknown) => error instanceof AppError && error.code === 'insufficient_balance' && error.status === 402,
    );
    assert.equal((await findUserById(db, user.id))?.balance_micro, 10_000);
    assert.equal((await listEntries(db, user.id, 10)).length, 1);
  });

  test('money held by running requests cannot be spent by another debit, and the store refuses a hold above the balance', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 100_000 });
    await db.updateTable('users').set({ held_micro: 60_000 }).where('id', '=', user.id).execute();
    await assert.rejects(
      postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_over_held', amountMicro: -40_001 }),
      (error: unknown) => error instanceof AppError && error.code === 'insufficient_balance',
    );
    await postLedgerEntryAlone(db, { userId: user.id, kind: 'generation_debit', reference: 'task_fits', amountMicro: -40_000 });
    assert.deepEqual([(await findUserById(db, user.id))?.balance_micro, (await findUserById(db, user.id))?.held_micro], [60_000, 60_000]);
    // The invariant held <= balance is the schema's too, whatever a buggy statement tries.
    await assert.rejects(db.updateTable('users').set({ held_micro: 60_001 }).where('id', '=', user.id).execute());
    assert.deepEqual(await findBalanceMismatches(db), []);
    // Held without a running request's row: set by hand above, taken back for the tests that follow.
    await db.updateTable('users').set({ held_micro: 0 }).where('id', '=', user.id).execute();
  });

  test('verify reports an account whose held money is not the sum of its running requests\' holds', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 100_000 });
    const hold = { user_id: user.id, api_key_id: null, model: 'gpt-5.4-mini', protocol: 'openai', stream: 0, created_at: 1, last_seen_at: 1 };
    await db.insertInto('chat_holds').values([{ ...hold, id: `${user.id}:a`, hold_micro: 7_000 }, { ...hold, id: `${user.id}:b`, hold_micro: 3_000 }]).execute();
    await db.updateTable('users').set({ held_micro: 10_000 }).where('id', '=', user.id).execute();
    assert.deepEqual(await verifyLedger(db), [], 'held = the sum of the holds');
    await db.deleteFrom('chat_holds').where('id', '=', `${user.id}:b`).execute();
    assert.deepEqual(await verifyLedger(db), [{ userId: user.id, heldMicro: 10_000, holdsSumMicro: 7_000 }]);
    await db.deleteFrom('chat_holds').where('user_id', '=', user.id).execute();
    await db.updateTable('users').set({ held_micro: 0 }).where('id', '=', user.id).execute();
  });

  test('a failure later in the same transaction rolls the movement back', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 50_000 });
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await postLedgerEntry(tx, { userId: user.id, kind: 'generation_debit', reference: 'task_rb', amountMicro: -20_000 });
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal((await findUserById(db, user.id))?.balance_micro, 50_000);
    assert.deepEqual(await findBalanceMismatches(db), []);
  });

  test('200 concurrent credits and debits, half of which would overdraw, never go negative and match the ledger', async () => {
    const db = t.handle.db;
    const user = await createUser(db, { balanceMicro: 0 });
    const ops = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? { userId: user.id, kind: 'credit' as const, reference: `${user.id}:c${i}`, amountMicro: 10_000 }
        : { userId: user.id, kind: 'generation_debit' as const, reference: `${user.id}:d${i}`, amountMicro: -20_000 },
    );
    const results = await Promise.allSettled(ops.map((op) => postLedgerEntryAlone(db, op)));
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) {
      assert.ok(r.reason instanceof AppError && r.reason.code === 'insufficient_balance', String(r.reason));
    }
    const debitsDone = results.filter((r, i) => r.status === 'fulfilled' && i % 2 === 1).length;
    const balance = (await findUserById(db, user.id))?.balance_micro ?? -1;
    assert.equal(balance, 100 * 10_000 - debitsDone * 20_000);
    assert.ok(balance >= 0);
    assert.ok(refused.length >= 50, `expected at least half the debits refused, got ${refused.length}`);
    const entries = await listEntries(db, user.id, 1000);
    assert.equal(entries.reduce((sum, e) => sum + e.amount_micro, 0), balance);
    assert.ok(entries.every((e) => e.balance_after_micro >= 0));
    assert.deepEqual(await findBalanceMismatches(db), []);
  });
});
