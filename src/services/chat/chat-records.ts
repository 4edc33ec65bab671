/**
 * The `chat_requests` rows of the chat service, beside the hot-path statements of chat-ledger.ts (the
 * row is written in the hold transaction and finished in the settlement): the heartbeat, and what the
 * chat_settle job needs to find and abandon requests whose process died in between. Every move out of
 * `in_progress` is a compare-and-set, so the live settlement and the job never both release a hold.
 */
import type { Executor } from '../../adapters/db/schema.ts';
import type { ChatRequestsTable } from '../../adapters/db/tables/chat.tables.ts';

export type ChatRequestStatus = 'in_progress' | 'succeeded' | 'failed' | 'cut' | 'client_closed' | 'abandoned';

export interface NewChatRequest {
  id: string;
  userId: string;
  apiKeyId: string | null;
  model: string;
  protocol: string;
  stream: boolean;
  holdMicro: number;
  now: number;
}

export interface ChatRequestOutcome {
  status: Exclude<ChatRequestStatus, 'in_progress'>;
  provider: string | null;
  upstreamModel: string | null;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheCreationTokens: number;
  usageEstimated: boolean;
  costMicro: number;
  stopReason: string | null;
  latencyMs: number;
  firstByteMs: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  finishedAt: number;
}

/** Records the part of a charge above the hold that the balance could not cover. */
export async function recordUncollected(db: Executor, id: string, costMicro: number, uncollectedMicro: number): Promise<void> {
  await db.updateTable('chat_requests').set({ cost_micro: costMicro, uncollected_micro: uncollectedMicro }).where('id', '=', id).execute();
}

/** Tells the chat_settle job that these requests are still being served. */
export async function touchChatRequests(db: Executor, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('chat_requests').set({ last_seen_at: now }).where('id', 'in', ids).where('status', '=', 'in_progress').execute();
}

export type StaleChatRequest = Pick<ChatRequestsTable, 'id' | 'user_id' | 'hold_micro' | 'model' | 'created_at'>;

/** Requests still `in_progress` whose process has not been heard from since `seenBefore`. */
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

/** Marks an abandoned request (compare-and-set); false when it was settled meanwhile. */
export async function abandonChatRequest(db: Executor, id: string, now: number, createdAt: number): Promise<boolean> {
  const result = await db
    .updateTable('chat_requests')
    .set({
      status: 'abandoned',
      cost_micro: 0,
      error_code: 'abandoned',
      error_message: 'The serving process stopped before the request settled; the hold was released in full.',
      latency_ms: now - createdAt,
      finished_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
