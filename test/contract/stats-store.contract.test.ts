/**
 * The stats store port (src/ports/stats-store.port.ts) on both engines: its counts and sums are those
 * of the rows written (failed tasks cost nothing), the checkpoint only moves forward from where its
 * writer saw it, a snapshot does not see a write committed in the middle of it, and the pages of the
 * export and of the generation list join without a gap or a repeat, ties on the time included.
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { kyselyLedgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import { insertTask } from '../../src/adapters/db/repositories/tasks.repository.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { KyselyStatsStore } from '../../src/adapters/db/stores/stats-store.ts';
import { KyselyStorageStore } from '../../src/adapters/db/stores/storage-store.ts';
import { newId } from '../../src/domain/ids.ts';
import type { TaskStatus } from '../../src/domain/tasks/task-status.ts';
import type { ListCursor } from '../../src/ports/stats-store.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { describeEachDatabase, type TestDatabase } from '../support/databases.ts';
import { taskRow } from '../support/task-rows.ts';

const DAY = 86_400_000;
const DAY_ONE = 20_000;
const T0 = DAY_ONE * DAY;

interface TaskSeed {
  day: number;
  model: string;
  status: TaskStatus;
  costMicro: number;
  apiKeyId: string | null;
}

async function seedTask(t: TestDatabase, userId: string, s: TaskSeed, offsetMs = 1_000): Promise<string> {
  const row = taskRow(userId, s.day * DAY + offsetMs, { model: s.model, status: s.status, cost_micro: s.costMicro, api_key_id: s.apiKeyId });
  await insertTask(t.handle.db, row);
  return row.id;
}

async function seedChat(t: TestDatabase, userId: string, day: number, model: string, costMicro: number, tokens: [number, number]): Promise<void> {
  await t.handle.db
    .insertInto('chat_requests')
    .values({
      id: newId('chat'),
      user_id: userId,
      api_key_id: null,
      model,
      protocol: 'openai',
      provider: 'local',
      upstream_model: model,
      stream: 0,
      status: 'succeeded',
      input_tokens: tokens[0],
      output_tokens: tokens[1],
      cached_tokens: 0,
      cache_creation_tokens: 0,
      usage_estimated: 0,
      hold_micro: costMicro,
      cost_micro: costMicro,
      latency_ms: 10,
      first_byte_ms: 5,
      error_code: null,
      error_message: null,
      created_at: day * DAY + 2_000,
      finished_at: day * DAY + 2_010,
    })
    .execute();
}

async function seedCharge(t: TestDatabase, userId: string, day: number, planId: string, amountMicro: number): Promise<void> {
  await new KyselyStorageStore().recordCharge(t.handle.db, {
    id: newId('stc'),
    user_id: userId,
    plan_id: planId,
    charge_kind: 'renewal',
    amount_micro: amountMicro,
    period_start: day * DAY,
    period_end: (day + 30) * DAY,
    reference: `storage:${newId('sq')}`,
    created_at: day * DAY + 3_000,
    api_key_id: null,
  });
}

const TASKS: TaskSeed[] = [
  { day: DAY_ONE, model: 'img-a', status: 'finished', costMicro: 40_000, apiKeyId: 'key_a' },
  { day: DAY_ONE, model: 'img-a', status: 'finished', costMicro: 40_000, apiKeyId: 'key_a' },
  { day: DAY_ONE, model: 'img-a', status: 'failed', costMicro: 70_000, apiKeyId: 'key_a' },
  { day: DAY_ONE, model: 'img-b', status: 'processing', costMicro: 5_000, apiKeyId: null },
  { day: DAY_ONE + 1, model: 'img-a', status: 'finished', costMicro: 12_345, apiKeyId: 'key_b' },
  { day: DAY_ONE + 3, model: 'img-b', status: 'finished', costMicro: 99_999, apiKeyId: null },
];

describeEachDatabase('stats store port', (t) => {
  test('the aggregates count and sum the rows written, per day, model, status and key', async () => {
    const stats = new KyselyStatsStore(t.handle.db);
    const direct = kyselyUnitOfWork(t.handle.db).direct;
    const user = await createUser(t.handle.db, {});
    const other = await createUser(t.handle.db, {});
    for (const s of TASKS) await seedTask(t, user.id, s);
    await seedTask(t, other.id, { day: DAY_ONE, model: 'img-a', status: 'finished', costMicro: 1, apiKeyId: null });
    await seedChat(t, user.id, DAY_ONE, 'chat-x', 300, [10, 20]);
    await seedChat(t, user.id, DAY_ONE, 'chat-x', 700, [1, 2]);
    await seedChat(t, user.id, DAY_ONE + 1, 'chat-y', 50, [5, 5]);
    await seedCharge(t, user.id, DAY_ONE + 1, 'small', 1_000_000);

    const tasks = await stats.aggregateTasks(direct, user.id, DAY_ONE, DAY_ONE + 1);
    const key = (r: { day: number; model: string; status: string }) => `${r.day}/${r.model}/${r.status}`;
    const got = new Map(tasks.map((r) => [key(r), [r.count, r.costMicro]]));
    assert.deepEqual(
      Object.fromEntries(got),
      {
        [`${DAY_ONE}/img-a/finished`]: [2, 80_000],
        [`${DAY_ONE}/img-a/failed`]: [1, 70_000],
        [`${DAY_ONE}/img-b/processing`]: [1, 5_000],
        [`${DAY_ONE + 1}/img-a/finished`]: [1, 12_345],
      },
      'the day after the range and the other user are not counted',
    );
    assert.ok(tasks.every((r) => r.type === 'IMAGE'));

    const chats = (await stats.aggregateChat(direct, user.id, DAY_ONE, DAY_ONE + 1)).sort((a, b) => a.day - b.day);
    assert.deepEqual(
      chats.map((r) => [r.day, r.model, r.count, r.costMicro, r.tokens]),
      [
        [DAY_ONE, 'chat-x', 2, 1_000, 33],
        [DAY_ONE + 1, 'chat-y', 1, 50, 10],
      ],
    );
    assert.deepEqual(
      (await stats.aggregateStorageCharges(direct, user.id, DAY_ONE, DAY_ONE + 1)).map((r) => [r.day, r.planId, r.count, r.costMicro]),
      [[DAY_ONE + 1, 'small', 1, 1_000_000]],
    );
    assert.deepEqual(await stats.aggregateStorageCharges(direct, user.id, DAY_ONE, DAY_ONE), []);

    const byKey = new Map((await stats.aggregateByApiKey(direct, user.id, DAY_ONE, DAY_ONE + 1)).map((r) => [r.apiKeyId, [r.count, r.costMicro]]));
    assert.deepEqual(Object.fromEntries(byKey), { key_a: [3, 80_000], key_b: [1, 12_345], null: [1 + 3 + 1, 5_000 + 1_050 + 1_000_000] }, 'a failed task costs nothing');

    const spent = await stats.spentBetweenDays(direct, user.id, DAY_ONE - 1, DAY_ONE + 3);
    assert.equal(spent, 80_000 + 5_000 + 12_345 + 99_999 + 1_050 + 1_000_000);
    assert.equal(await stats.spentBetweenDays(direct, user.id, DAY_ONE, DAY_ONE + 1), 12_345 + 50 + 1_000_000, 'after the first day, through the second');
    assert.equal(await stats.firstOpenDay(direct, user.id, DAY_ONE - 1, DAY_ONE + 3), DAY_ONE, 'the processing task keeps its day open');
    assert.equal(await stats.firstOpenDay(direct, user.id, DAY_ONE, DAY_ONE + 3), undefined);
    assert.equal((await stats.findUser(direct, user.id))?.id, user.id);
    assert.equal(await stats.findUser(direct, 'usr_nobody'), undefined);
  });

  test('the checkpoint moves forward only from where its writer read it', async () => {
    const stats = new KyselyStatsStore(t.handle.db);
    const direct = kyselyUnitOfWork(t.handle.db).direct;
    const user = await createUser(t.handle.db, {});
    assert.equal(await stats.findCheckpoint(direct, user.id), undefined);
    await stats.advanceCheckpoint(direct, user.id, undefined, { throughDay: 10, spentMicro: 100 }, T0);
    await stats.advanceCheckpoint(direct, user.id, undefined, { throughDay: 11, spentMicro: 999 }, T0);
    assert.deepEqual(await stats.findCheckpoint(direct, user.id), { throughDay: 10, spentMicro: 100 }, 'a second first checkpoint loses');
    await stats.advanceCheckpoint(direct, user.id, { throughDay: 10, spentMicro: 100 }, { throughDay: 12, spentMicro: 150 }, T0);
    await stats.advanceCheckpoint(direct, user.id, { throughDay: 10, spentMicro: 100 }, { throughDay: 13, spentMicro: 999 }, T0);
    assert.deepEqual(await stats.findCheckpoint(direct, user.id), { throughDay: 12, spentMicro: 150 }, 'a move from a stale checkpoint changes nothing');
  });

  test('a snapshot does not see a write committed while it reads', async () => {
    const stats = new KyselyStatsStore(t.handle.db);
    const user = await createUser(t.handle.db, {});
    await seedTask(t, user.id, TASKS[0] as TaskSeed);
    const count = async (tx: Parameters<typeof stats.aggregateTasks>[0]) => (await stats.aggregateTasks(tx, user.id, DAY_ONE, DAY_ONE)).reduce((n, r) => n + r.count, 0);
    let write: Promise<string> | undefined;
    const [first, second] = await stats.readSnapshot(async (tx) => {
      const before = await count(tx);
      write = seedTask(t, user.id, TASKS[1] as TaskSeed, 5_000);
      // PostgreSQL commits it meanwhile; SQLite's single writer waits for the snapshot to end.
      await Promise.race([write, delay(300)]);
      return [before, await count(tx)];
    });
    await write;
    assert.deepEqual([first, second], [1, 1]);
    assert.equal(await count(kyselyUnitOfWork(t.handle.db).direct), 2, 'the write is there after the snapshot');
  });

  test('the ledger export pages join without gaps or repeats, newest first, ties included', async () => {
    const stats = new KyselyStatsStore(t.handle.db);
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const written: string[] = [];
    for (let i = 0; i < 130; i++) {
      // Three entries share each millisecond: the cursor must break ties by id.
      const at = T0 + Math.floor(i / 3);
      const posted = await uow.transaction((tx) => kyselyLedgerBook.post(tx, { userId: user.id, kind: 'credit', reference: `${user.id}:${i}`, amountMicro: 1 }, at));
      written.push(posted.entry.id);
    }
    // Outside the range: one before, one at its end (excluded).
    await uow.transaction((tx) => kyselyLedgerBook.post(tx, { userId: user.id, kind: 'credit', reference: `${user.id}:early`, amountMicro: 1 }, T0 - 1));
    await uow.transaction((tx) => kyselyLedgerBook.post(tx, { userId: user.id, kind: 'credit', reference: `${user.id}:late`, amountMicro: 1 }, T0 + DAY));

    const seen: Array<{ id: string; created_at: number }> = [];
    let cursor: ListCursor | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await stats.ledgerEntriesBetween(uow.direct, user.id, T0, T0 + DAY, 25, cursor);
      seen.push(...page);
      const last = page.at(-1);
      if (page.length < 25 || !last) break;
      cursor = { createdAt: last.created_at, id: last.id };
    }
    const ids = seen.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'no entry twice');
    assert.deepEqual([...ids].sort(), [...written].sort(), 'every entry of the range, and only those');
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]] as [{ id: string; created_at: number }, { id: string; created_at: number }];
      assert.ok(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id), 'newest first, then by id');
    }
  });

  test('the generation list pages join without gaps or repeats and keep to its filter', async () => {
    const stats = new KyselyStatsStore(t.handle.db);
    const direct = kyselyUnitOfWork(t.handle.db).direct;
    const user = await createUser(t.handle.db, {});
    const finished: string[] = [];
    for (let i = 0; i < 23; i++) {
      const status: TaskStatus = i % 4 === 0 ? 'failed' : 'finished';
      const id = await seedTask(t, user.id, { day: DAY_ONE, model: 'img-a', status, costMicro: 10, apiKeyId: null }, Math.floor(i / 2));
      if (status === 'finished') finished.push(id);
    }
    const seen: string[] = [];
    let after: ListCursor | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await stats.listUserTasks(direct, user.id, { statuses: ['finished'] }, 4, after);
      seen.push(...page.map((r) => r.id));
      assert.ok(page.every((r) => r.status === 'finished' && r.user_id === user.id));
      const last = page.at(-1);
      if (page.length < 4 || !last) break;
      after = { createdAt: last.created_at, id: last.id };
    }
    assert.equal(new Set(seen).size, seen.length, 'no task twice');
    assert.deepEqual([...seen].sort(), [...finished].sort());
  });

});
