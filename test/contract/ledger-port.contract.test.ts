/**
 * The ledger port (src/ports/ledger.port.ts), on both engines: the book (post, find, the release of an
 * abandoned hold) and the chat ledger (PostgreSQL: statements through the group commit; SQLite: the
 * writer thread with its own connection, beside the main thread's writes), checked against the pure
 * rules of src/domain/ledger/settlement.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createChatLedger } from '../../src/adapters/db/ledger/chat-ledger-factory.ts';
import { findBalanceMismatches } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { listEntries } from '../../src/adapters/db/ledger/ledger.repository.ts';
import { findUserById } from '../../src/adapters/db/repositories/users.repository.ts';
import { AppError } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import { canReserve, collectable, release, reserve, settle } from '../../src/domain/ledger/settlement.ts';
import type { ChatLedger, NewChatRequest } from '../../src/ports/ledger.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { kyselyLedgerBook as ledgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import { postLedgerEntry, postLedgerEntryAlone } from '../../src/adapters/db/ledger/ledger-posting.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { chatOutcome, heldRequest } from '../support/chat-ledger-fixtures.ts';
import { describeEachDatabase } from '../support/databases.ts';

describeEachDatabase('ledger port: the book', (t) => {
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

const quiet = pino({ level: 'silent' });

describeEachDatabase('ledger port: the chat ledger', (t) => {
  let ledger: ChatLedger;
  before(() => {
    ledger = createChatLedger(t.handle, quiet);
  });
  after(() => ledger.close());

  const account = async (userId: string) => {
    const row = await t.handle.db.selectFrom('users').select(['balance_micro', 'held_micro']).where('id', '=', userId).executeTakeFirstOrThrow();
    return { balance: Number(row.balance_micro), held: Number(row.held_micro) };
  };
  const figures = async (userId: string) => {
    const { balance, held } = await account(userId);
    return { balanceMicro: balance, heldMicro: held };
  };

  test('a hold reserves, a settlement releases it and charges the cost once; a second settlement finds it taken', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const request = heldRequest(user.id, 30_000);
    await ledger.hold(request);
    assert.deepEqual(await account(user.id), { balance: 100_000, held: 30_000 });
    assert.equal(await ledger.settle(request, chatOutcome(1_234), 'gpt-5.4-mini', false), 'done');
    assert.equal(await ledger.settle(request, chatOutcome(1_234), 'gpt-5.4-mini', false), 'taken');
    assert.deepEqual(await account(user.id), { balance: 98_766, held: 0 });
    const entries = await t.handle.db.selectFrom('ledger_entries').select(['kind', 'amount_micro', 'balance_after_micro']).where('reference', '=', request.id).execute();
    assert.deepEqual(entries.map((e) => [e.kind, Number(e.amount_micro), Number(e.balance_after_micro)]), [['chat_charge', -1_234, 98_766]]);
    const row = await t.handle.db.selectFrom('chat_requests').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.status, Number(row.cost_micro), Number(row.hold_micro), Number(row.uncollected_micro)], ['succeeded', 1_234, 30_000, 0]);
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('holds that do not fit are refused and write nothing; an unknown user is told apart', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 50_000 });
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => ledger.hold(heldRequest(user.id, 20_000))));
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 2, 'two holds of 0.02 fit in 0.05');
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(o.reason instanceof AppError && o.reason.code === 'insufficient_balance');
    assert.deepEqual(await account(user.id), { balance: 50_000, held: 40_000 });
    // Held money cannot be spent by another debit either.
    await assert.rejects(postLedgerEntryAlone(t.handle.db, { userId: user.id, kind: 'generation_debit', reference: newId('task'), amountMicro: -10_001 }), /insufficient/);
    await assert.rejects(ledger.hold(heldRequest('usr_nobody', 1)), (error: unknown) => error instanceof AppError && error.code === 'user_not_found');
  });

  test('a cost above what the balance covers takes what is there and records the rest', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 10_000 });
    const request = heldRequest(user.id, 8_000);
    await ledger.hold(request);
    const result = await ledger.settle(request, chatOutcome(25_000), 'gpt-5.4-mini', false);
    assert.deepEqual(result, { uncollectedMicro: 15_000 });
    assert.deepEqual(await account(user.id), { balance: 0, held: 0 });
    const row = await t.handle.db.selectFrom('chat_requests').select(['cost_micro', 'uncollected_micro']).where('id', '=', request.id).executeTakeFirstOrThrow();
    assert.deepEqual([Number(row.cost_micro), Number(row.uncollected_micro)], [10_000, 15_000]);
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('one failing settlement fails alone; the others of its batch are written', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const requests = [heldRequest(user.id, 1_000), heldRequest(user.id, 1_000), heldRequest(user.id, 1_000)];
    await Promise.all(requests.map((r) => ledger.hold(r)));
    // A row for the middle request already exists: its settlement's insert breaks the primary key.
    const [first, middle, last] = requests as [NewChatRequest, NewChatRequest, NewChatRequest];
    await t.handle.db
      .insertInto('chat_requests')
      .values({ id: middle.id, user_id: user.id, api_key_id: null, model: 'x', protocol: 'openai', provider: null, upstream_model: null, stream: 0, status: 'failed', input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_creation_tokens: 0, usage_estimated: 0, hold_micro: 0, cost_micro: 0, stop_reason: null, latency_ms: null, first_byte_ms: null, error_code: null, error_message: null, created_at: 1, finished_at: 1 })
      .execute();
    const results = await Promise.allSettled([first, middle, last].map((r) => ledger.settle(r, chatOutcome(100), 'gpt-5.4-mini', false)));
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    // The failed one keeps its hold (the crash job will release it); the others are charged.
    assert.deepEqual(await account(user.id), { balance: 99_800, held: 1_000 });
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('the event loop keeps writing while the ledger writes: no write meets the other in the busy handler, nothing is lost', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 10_000_000 });
    // On SQLite: no busy handler on the main connection, so a write that met the writer thread's
    // write lock in SQLite (instead of waiting on the process's SqliteWriteLock) fails at once.
    if (t.kind === 'sqlite') await sql`pragma busy_timeout = 0`.execute(t.handle.db);
    try {
      // Interleaved over many turns of the event loop, so that main-thread writes meet ledger batches.
      const chats: Array<Promise<string | object>> = [];
      const writes: Array<Promise<unknown>> = [];
      const failures: string[] = [];
      const noted = (write: Promise<unknown>) => write.catch((error: unknown) => failures.push(String(error)));
      for (let i = 0; i < 300; i++) {
        chats.push(
          (async () => {
            const request = heldRequest(user.id, 1_000);
            await ledger.hold(request);
            return ledger.settle(request, chatOutcome(10 + (i % 7)), 'gpt-5.4-mini', i % 2 === 0);
          })(),
        );
        if (i % 3 === 0) writes.push(noted(postLedgerEntryAlone(t.handle.db, { userId: user.id, kind: 'credit', reference: `${user.id}:c${i}`, amountMicro: 5 })));
        if (i % 3 === 1) writes.push(noted(t.handle.db.updateTable('users').set({ email: `writer-${i}-${user.id}@example.com` }).where('id', '=', user.id).execute()));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const settled = await Promise.all(chats);
      await Promise.all(writes);
      assert.deepEqual(failures, []);
      assert.ok(settled.every((s) => s === 'done'));
    } finally {
      if (t.kind === 'sqlite') await sql`pragma busy_timeout = 10000`.execute(t.handle.db);
    }
    const expectedCharges = Array.from({ length: 300 }, (_, i) => 10 + (i % 7)).reduce((a, b) => a + b, 0);
    assert.deepEqual(await account(user.id), { balance: 10_000_000 - expectedCharges + 500, held: 0 });
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('each engine applies the rules of domain/ledger/settlement.ts: reserve, collect at most what the balance covers, release', async () => {
    for (const { balance, otherHold, hold, cost } of [
      { balance: 100_000, otherHold: 0, hold: 30_000, cost: 12_345 },
      { balance: 100_000, otherHold: 50_000, hold: 30_000, cost: 45_000 },
      { balance: 100_000, otherHold: 60_000, hold: 30_000, cost: 80_000 },
      { balance: 40_000, otherHold: 0, hold: 40_000, cost: 0 },
    ]) {
      const user = await createUser(t.handle.db, { balanceMicro: balance });
      const other = heldRequest(user.id, otherHold);
      if (otherHold > 0) await ledger.hold(other);
      const before = await figures(user.id);
      assert.equal(canReserve(before, hold), true);
      const request = heldRequest(user.id, hold);
      await ledger.hold(request);
      const held = await figures(user.id);
      assert.deepEqual(held, reserve(before, hold));
      const collected = collectable(held, hold, cost);
      const result = await ledger.settle(request, chatOutcome(cost), 'gpt-5.4-mini', false);
      assert.deepEqual(result, collected === cost ? 'done' : { uncollectedMicro: cost - collected });
      assert.deepEqual(await figures(user.id), settle(held, hold, collected));
      if (otherHold > 0) await ledger.settle(other, chatOutcome(0), 'gpt-5.4-mini', false);
    }
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('the book releases an abandoned hold once, in full; the late settlement then finds it taken', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const request = heldRequest(user.id, 30_000);
    await ledger.hold(request);
    const hold = await t.handle.db.selectFrom('chat_holds').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
    const held = await figures(user.id);
    assert.equal(await t.handle.db.transaction().execute((tx) => ledgerBook.releaseAbandonedHold(tx, hold, Date.now())), true);
    assert.equal(await t.handle.db.transaction().execute((tx) => ledgerBook.releaseAbandonedHold(tx, hold, Date.now())), false);
    assert.deepEqual(await figures(user.id), release(held, 30_000));
    assert.equal(await ledger.settle(request, chatOutcome(1_000), 'gpt-5.4-mini', false), 'taken');
    assert.deepEqual(await figures(user.id), release(held, 30_000));
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });

  test('the book settles a hold left to the job with its estimate once, never above the hold', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const request = heldRequest(user.id, 30_000);
    await ledger.hold(request);
    const held = await figures(user.id);
    // An estimate above the hold (a row written by hand) is charged at the hold.
    await t.handle.db.updateTable('chat_holds').set({ settle_micro: 45_000, settle_status: 'cut', last_seen_at: 0 }).where('id', '=', request.id).execute();
    const hold = await t.handle.db.selectFrom('chat_holds').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
    assert.equal(await t.handle.db.transaction().execute((tx) => ledgerBook.settleDeferredHold(tx, hold, Date.now())), true);
    assert.equal(await t.handle.db.transaction().execute((tx) => ledgerBook.settleDeferredHold(tx, hold, Date.now())), false);
    assert.deepEqual(await figures(user.id), settle(held, 30_000, 30_000));
    const row = await t.handle.db.selectFrom('chat_requests').select(['status', 'cost_micro']).where('id', '=', request.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.status, Number(row.cost_micro)], ['cut', 30_000]);
    assert.equal(await ledger.settle(request, chatOutcome(1_000), 'gpt-5.4-mini', false), 'taken');
    assert.deepEqual(await verifyLedger(t.handle.db), []);
  });
});
