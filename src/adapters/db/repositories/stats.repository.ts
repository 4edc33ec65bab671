import { sql } from 'kysely';
import type { ApiKeyAggregate, ChatAggregate, StatsCheckpoint, TaskAggregate } from '../../../ports/stats-store.port.ts';
import type { Executor } from '../schema.ts';

/**
 * Aggregates for GET /api/v1/stats, computed by the database over the covering indexes of migration
 * 008, which are ordered by (user_id, UTC day, …): a period is one index range, read without visiting
 * table rows and grouped without a sort. The day expression is written exactly as in the indexes.
 */
const DAY_OF = sql<number>`created_at / ${sql.lit(86_400_000)}`;

/** Task statuses whose spend may still change: a task that fails is refunded in full. */
export const OPEN_TASK_STATUSES = ['not_started', 'processing'] as const;
/** A chat request held before migration 009 and not settled yet (newer ones are rows of chat_holds). */
export const OPEN_CHAT_STATUS = 'in_progress';

export type { ApiKeyAggregate, ChatAggregate, StatsCheckpoint, TaskAggregate } from '../../../ports/stats-store.port.ts';

/** Tasks created on UTC days firstDay..lastDay, per day, model, type and status. */
export async function aggregateTasks(db: Executor, userId: string, firstDay: number, lastDay: number): Promise<TaskAggregate[]> {
  const rows = await db
    .selectFrom('tasks')
    .select((eb) => [DAY_OF.as('day'), 'model', 'type', 'status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('cost_micro').as('cost')])
    .where('user_id', '=', userId)
    .where(DAY_OF, '>=', firstDay)
    .where(DAY_OF, '<=', lastDay)
    .groupBy([DAY_OF, 'model', 'type', 'status'])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), model: r.model, type: r.type, status: r.status, count: Number(r.n), costMicro: Number(r.cost ?? 0) }));
}

/**
 * Generations (refunded ones cost nothing), chat requests and storage charges (each names its key
 * since migration 031) on UTC days firstDay..lastDay, per API key: together they are the period's spend.
 */
export async function aggregateByApiKey(db: Executor, userId: string, firstDay: number, lastDay: number): Promise<ApiKeyAggregate[]> {
  const [tasks, chats, storage] = await Promise.all([
    db
      .selectFrom('tasks')
      .select((eb) => ['api_key_id', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>(sql<number>`case when status = 'failed' then 0 else cost_micro end`).as('cost')])
      .where('user_id', '=', userId)
      .where(DAY_OF, '>=', firstDay)
      .where(DAY_OF, '<=', lastDay)
      .groupBy('api_key_id')
      .execute(),
    db
      .selectFrom('chat_requests')
      .select((eb) => ['api_key_id', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('cost_micro').as('cost')])
      .where('user_id', '=', userId)
      .where(DAY_OF, '>=', firstDay)
      .where(DAY_OF, '<=', lastDay)
      .groupBy('api_key_id')
      .execute(),
    db
      .selectFrom('storage_charges')
      .select((eb) => ['api_key_id', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('amount_micro').as('cost')])
      .where('user_id', '=', userId)
      .where(DAY_OF, '>=', firstDay)
      .where(DAY_OF, '<=', lastDay)
      .groupBy('api_key_id')
      .execute(),
  ]);
  const byKey = new Map<string | null, ApiKeyAggregate>();
  for (const row of [...tasks, ...chats, ...storage]) {
    const key = row.api_key_id ?? null;
    const acc = byKey.get(key) ?? { apiKeyId: key, count: 0, costMicro: 0 };
    acc.count += Number(row.n);
    acc.costMicro += Number(row.cost ?? 0);
    byKey.set(key, acc);
  }
  return [...byKey.values()];
}

/** Chat requests created on UTC days firstDay..lastDay, per day and model. */
export async function aggregateChat(db: Executor, userId: string, firstDay: number, lastDay: number): Promise<ChatAggregate[]> {
  const rows = await db
    .selectFrom('chat_requests')
    .select((eb) => [
      DAY_OF.as('day'),
      'model',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('cost_micro').as('cost'),
      eb.fn.sum<number>(sql<number>`input_tokens + output_tokens`).as('tokens'),
    ])
    .where('user_id', '=', userId)
    .where(DAY_OF, '>=', firstDay)
    .where(DAY_OF, '<=', lastDay)
    .groupBy([DAY_OF, 'model'])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), model: r.model, count: Number(r.n), costMicro: Number(r.cost ?? 0), tokens: Number(r.tokens ?? 0) }));
}

/** Spend of tasks (not refunded), chat requests and storage charges created after `afterDay` and up to `throughDay` (inclusive). */
export async function spentBetweenDays(db: Executor, userId: string, afterDay: number, throughDay: number): Promise<number> {
  const tasks = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.sum<number>('cost_micro').as('cost'))
    .where('user_id', '=', userId)
    .where(DAY_OF, '>', afterDay)
    .where(DAY_OF, '<=', throughDay)
    .where('status', '!=', 'failed')
    .executeTakeFirst();
  const chat = await db
    .selectFrom('chat_requests')
    .select((eb) => eb.fn.sum<number>('cost_micro').as('cost'))
    .where('user_id', '=', userId)
    .where(DAY_OF, '>', afterDay)
    .where(DAY_OF, '<=', throughDay)
    .executeTakeFirst();
  const storage = await db
    .selectFrom('storage_charges')
    .select((eb) => eb.fn.sum<number>('amount_micro').as('cost'))
    .where('user_id', '=', userId)
    .where(DAY_OF, '>', afterDay)
    .where(DAY_OF, '<=', throughDay)
    .executeTakeFirst();
  return Number(tasks?.cost ?? 0) + Number(chat?.cost ?? 0) + Number(storage?.cost ?? 0);
}

/**
 * The first day after `afterDay` (up to throughDay) holding a task or chat request whose cost may
 * still change: a running task, a chat request held before migration 009 and not settled, or a
 * running request's hold (its chat_requests row is written when it settles, dated when it started).
 */
export async function firstOpenDay(db: Executor, userId: string, afterDay: number, throughDay: number): Promise<number | undefined> {
  const mine = sql`user_id = ${userId} and ${DAY_OF} > ${afterDay} and ${DAY_OF} <= ${throughDay}`;
  const { rows } = await sql<{ day: number | null }>`select min(day) as day from (
    select min(${DAY_OF}) as day from tasks where ${mine} and status in (${sql.join([...OPEN_TASK_STATUSES])})
    union all select min(${DAY_OF}) from chat_requests where ${mine} and status = ${OPEN_CHAT_STATUS}
    union all select min(${DAY_OF}) from chat_holds where ${mine}
  ) as open_days`.execute(db);
  const day = rows[0]?.day;
  return day === null || day === undefined ? undefined : Number(day);
}

export async function findCheckpoint(db: Executor, userId: string): Promise<StatsCheckpoint | undefined> {
  const row = await db.selectFrom('stats_checkpoints').select(['through_day', 'spent_micro']).where('user_id', '=', userId).executeTakeFirst();
  return row ? { throughDay: Number(row.through_day), spentMicro: Number(row.spent_micro) } : undefined;
}

/**
 * Moves the checkpoint forward (never back): inserts it, or replaces one that is still at `from`.
 * A concurrent request that moved it first wins; both computed the same sum.
 */
export async function advanceCheckpoint(db: Executor, userId: string, from: StatsCheckpoint | undefined, to: StatsCheckpoint, now: number): Promise<void> {
  if (!from) {
    await db
      .insertInto('stats_checkpoints')
      .values({ user_id: userId, through_day: to.throughDay, spent_micro: to.spentMicro, updated_at: now })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    return;
  }
  await db
    .updateTable('stats_checkpoints')
    .set({ through_day: to.throughDay, spent_micro: to.spentMicro, updated_at: now })
    .where('user_id', '=', userId)
    .where('through_day', '=', from.throughDay)
    .execute();
}
