import { sql } from 'kysely';
import { readCommitted } from '../../sqlite/read-committed.ts';
import type { Executor } from '../../schema.ts';
import type { AgentEventsTable } from '../../tables/agent.tables.ts';

export type EventRow = AgentEventsTable;

export interface SequenceGrant {
  sequence: number;
  userId: string;
  storefront: string;
  projectId: string | null;
}

/**
 * The conversation's next event sequence, taken in the caller's transaction: the row update is the
 * lock that orders the conversation's events, so sequences commit in order and without gaps.
 * Undefined when the conversation was deleted (its events are gone with it).
 */
export async function takeEventSequence(db: Executor, conversationId: string): Promise<SequenceGrant | undefined> {
  const row = await db
    .updateTable('agent_conversations')
    .set({ event_seq: sql<number>`event_seq + 1` })
    .where('id', '=', conversationId)
    .where('deleted_at', 'is', null)
    .returning(['event_seq', 'user_id', 'storefront', 'project_id'])
    .executeTakeFirst();
  if (!row) return undefined;
  return { sequence: Number(row.event_seq), userId: row.user_id, storefront: row.storefront, projectId: row.project_id };
}

export async function insertEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto('agent_events').values(row).execute();
}

/** Events strictly after `afterSequence`, in order. */
export async function listEventsAfter(db: Executor, conversationId: string, afterSequence: number, limit: number): Promise<EventRow[]> {
  return readCommitted(
    db,
    db.selectFrom('agent_events').selectAll().where('conversation_id', '=', conversationId).where('sequence', '>', afterSequence).orderBy('sequence').limit(limit),
  );
}

/** The oldest sequence still kept (undefined when none is), to tell a cursor that retention passed. */
export async function oldestEventSequence(db: Executor, conversationId: string): Promise<number | undefined> {
  const [row] = await readCommitted(
    db,
    db.selectFrom('agent_events').select((eb) => eb.fn.min<number>('sequence').as('oldest')).where('conversation_id', '=', conversationId),
  );
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
}

export async function lastEventSequence(db: Executor, conversationId: string): Promise<number> {
  const [row] = await readCommitted(db, db.selectFrom('agent_conversations').select('event_seq').where('id', '=', conversationId));
  return Number(row?.event_seq ?? 0);
}

/** The last sequence of each conversation (committed data). */
export async function lastEventSequences(db: Executor, conversationIds: string[]): Promise<Array<{ id: string; event_seq: number }>> {
  if (conversationIds.length === 0) return [];
  return readCommitted(db, db.selectFrom('agent_conversations').select(['id', 'event_seq']).where('id', 'in', conversationIds));
}

export async function deleteEvents(db: Executor, conversationId: string): Promise<void> {
  await db.deleteFrom('agent_events').where('conversation_id', '=', conversationId).execute();
}

/** Events older than `before` (retention); returns how many were removed. */
export async function pruneEvents(db: Executor, before: number, limit: number): Promise<number> {
  const old = db.selectFrom('agent_events').select(['conversation_id', 'sequence']).where('created_at', '<', before).limit(limit);
  const rows = await old.execute();
  for (const row of rows) {
    await db.deleteFrom('agent_events').where('conversation_id', '=', row.conversation_id).where('sequence', '=', row.sequence).execute();
  }
  return rows.length;
}
