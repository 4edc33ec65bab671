/**
 * The chat ledger's contract, on both implementations: PostgreSQL (statements through the group
 * commit) and SQLite (the writer thread with its own connection, beside the main thread's writes).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { AppError } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import { createUser } from '../../src/services/accounts.service.ts';
import { createChatLedger } from '../../src/adapters/db/ledger/chat-ledger-factory.ts';
import type { ChatLedger } from '../../src/ports/ledger.port.ts';
import type { NewChatRequest } from '../../src/ports/ledger.port.ts';
import { postLedgerEntryAlone, verifyLedger } from '../../src/services/ledger.service.ts';
import { chatOutcome, heldRequest } from '../support/chat-ledger-fixtures.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('chat ledger', (t) => {
  let ledger: ChatLedger;
  before(() => {
    ledger = createChatLedger(t.handle.db, quiet);
  });
  after(() => ledger.close());

  const account = async (userId: string) => {
    const row = await t.handle.db.selectFrom('users').select(['balance_micro', 'held_micro']).where('id', '=', userId).executeTakeFirstOrThrow();
    return { balance: Number(row.balance_micro), held: Number(row.held_micro) };
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
});
