/**
 * The chat requests' records beside the hot-path statements of the chat ledger (chat-ledger-factory.ts),
 * which writes a request's `chat_holds` row with its hold, and its `chat_requests` row when it settles:
 * the heartbeat, and what the chat_settle job needs to find and abandon requests whose process died in
 * between. Deleting the hold row is the compare-and-set: the live settlement and the job never both
 * release a hold.
 */
import { sql } from 'kysely';
import { moveKeySpend } from './api-key-spend.repository.ts';
import type { ChatHold } from '../../../ports/ledger.port.ts';
import type { Executor } from '../schema.ts';
import type { ChatRequestsTable } from '../tables/chat.tables.ts';

/** Tells the chat_settle job that these requests are still being served. */
export async function touchChatHolds(db: Executor, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  // A row left to the job (deferChatSettlement) stays stale: its request is no longer running.
  await db.updateTable('chat_holds').set({ last_seen_at: now }).where('id', 'in', ids).where('settle_micro', 'is', null).execute();
}

export type StaleChatHold = ChatHold;

/** Holds whose process has not been heard from since `seenBefore`, oldest first. */
export async function findStaleChatHolds(db: Executor, seenBefore: number, limit: number): Promise<StaleChatHold[]> {
  return db.selectFrom('chat_holds').selectAll().where('last_seen_at', '<', seenBefore).orderBy('last_seen_at').limit(limit).execute();
}

/**
 * Releases an abandoned request's hold in full and records it as `abandoned`, in the caller's
 * transaction; false when the hold was gone (the request settled meanwhile). The book's
 * releaseAbandonedHold (ledger-book.ts).
 */
export async function abandonChatHold(db: Executor, hold: StaleChatHold, now: number): Promise<boolean> {
  if (!(await takeChatHold(db, hold))) return false;
  await insertJobSettledRow(db, hold, now, { status: 'abandoned', costMicro: 0, usageEstimated: false, errorCode: 'abandoned', errorMessage: ABANDONED_MESSAGE });
  return true;
}

/**
 * The compare-and-set of the job's settlements: deletes the hold row and gives the hold back to the
 * account and its key; false when the row was gone (the request settled meanwhile).
 */
export async function takeChatHold(db: Executor, hold: StaleChatHold): Promise<boolean> {
  const deleted = await db.deleteFrom('chat_holds').where('id', '=', hold.id).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) return false;
  await db
    .updateTable('users')
    .set({ held_micro: sql<number>`held_micro - ${hold.hold_micro}` })
    .where('id', '=', hold.user_id)
    .execute();
  if (hold.api_key_id !== null) await moveKeySpend(db, hold.api_key_id, hold.created_at, { spentMicro: 0, heldMicro: -hold.hold_micro }, false);
  return true;
}

/** The request's row, as the chat_settle job writes it (the tokens are not known there). */
export async function insertJobSettledRow(
  db: Executor,
  hold: StaleChatHold,
  now: number,
  o: { status: string; costMicro: number; usageEstimated: boolean; errorCode: string; errorMessage: string },
): Promise<void> {
  await db
    .insertInto('chat_requests')
    .values({
      id: hold.id,
      user_id: hold.user_id,
      api_key_id: hold.api_key_id,
      model: hold.model,
      protocol: hold.protocol,
      provider: null,
      upstream_model: null,
      stream: hold.stream,
      status: o.status,
      input_tokens: 0,
      output_tokens: 0,
      cached_tokens: 0,
      cache_creation_tokens: 0,
      usage_estimated: o.usageEstimated ? 1 : 0,
      hold_micro: hold.hold_micro,
      cost_micro: o.costMicro,
      stop_reason: null,
      latency_ms: now - hold.created_at,
      first_byte_ms: null,
      error_code: o.errorCode,
      error_message: o.errorMessage,
      created_at: hold.created_at,
      finished_at: now,
      last_seen_at: hold.last_seen_at,
    })
    .execute();
}

/**
 * The live settlement failed for good (a fault that outlasted its retries, or a bug): the serving
 * process leaves its hold to the chat_settle job with the charge to make (the estimate) and the status
 * it meant, and marks the row stale (last_seen_at 0), so the job settles it at its next run.
 */
export async function deferChatSettlement(db: Executor, id: string, settle: { chargeMicro: number; status: string }): Promise<void> {
  await db.updateTable('chat_holds').set({ settle_micro: settle.chargeMicro, settle_status: settle.status, last_seen_at: 0 }).where('id', '=', id).execute();
}

const ABANDONED_MESSAGE = 'The serving process stopped before the request settled; the hold was released in full.';

/** A request held before migration 009 (its hold a `chat_hold` ledger entry), still `in_progress`. */
export type StaleChatRequest = Pick<ChatRequestsTable, 'id' | 'user_id' | 'hold_micro' | 'model' | 'created_at'>;

/** Requests held before migration 009, still `in_progress`, not heard from since `seenBefore`. */
export async function findStaleChatRequests(db: Executor, seenBefore: number, limit: number): Promise<StaleChatRequest[]> {
  return db
    .selectFrom('chat_requests')
    .select(['id', 'user_id', 'hold_micro', 'model', 'created_at'])
    .where('status', '=', 'in_progress')
    .where('last_seen_at', '<', seenBefore)
    .orderBy('last_seen_at')
    .limit(limit)
    .execute();
}

/** Marks an abandoned request held before migration 009 (compare-and-set); false when it was settled meanwhile. */
export async function abandonChatRequest(db: Executor, id: string, now: number, createdAt: number): Promise<boolean> {
  const result = await db
    .updateTable('chat_requests')
    .set({
      status: 'abandoned',
      cost_micro: 0,
      error_code: 'abandoned',
      error_message: ABANDONED_MESSAGE,
      latency_ms: now - createdAt,
      finished_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A running request's hold row (undefined once it settled, or when it was never held). */
export async function findChatHold(db: Executor, id: string): Promise<StaleChatHold | undefined> {
  return db.selectFrom('chat_holds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What a settled request was charged (undefined while it runs, or when it never started). */
export async function findChatCharge(db: Executor, id: string): Promise<{ status: string; costMicro: number } | undefined> {
  const row = await db.selectFrom('chat_requests').select(['status', 'cost_micro']).where('id', '=', id).executeTakeFirst();
  return row ? { status: row.status, costMicro: Number(row.cost_micro) } : undefined;
}
