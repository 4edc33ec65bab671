import { sql } from 'kysely';
import { isPostgres } from '../../dialect-of.ts';
import type { Executor } from '../../schema.ts';
import type { AgentConversationsTable } from '../../tables/agent.tables.ts';

export type ConversationRow = Omit<AgentConversationsTable, 'event_seq' | 'run_count'> & { event_seq: number; run_count: number };

export async function insertConversation(db: Executor, row: ConversationRow): Promise<void> {
  await db.insertInto('agent_conversations').values(row).execute();
}

/** A live conversation of this user on this storefront (another's, or a deleted one, does not exist). */
export async function findConversation(db: Executor, owner: { userId: string; storefront: string }, id: string): Promise<ConversationRow | undefined> {
  return db
    .selectFrom('agent_conversations')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findConversationById(db: Executor, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('agent_conversations').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface ConversationCursor {
  lastActivityAt: number;
  id: string;
}

/** One page by latest activity, newest first; `ids` restricts it to the matches of a search. */
export async function listConversations(
  db: Executor,
  owner: { userId: string; storefront: string },
  limit: number,
  after: ConversationCursor | undefined,
  search: string | undefined,
): Promise<ConversationRow[]> {
  let query = db
    .selectFrom('agent_conversations')
    .selectAll()
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null);
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('last_activity_at', '<', after.lastActivityAt), eb.and([eb('last_activity_at', '=', after.lastActivityAt), eb('id', '<', after.id)])]),
    );
  }
  if (search !== undefined) {
    const matches =
      isPostgres(db)
        ? sql<string>`(select s.conversation_id from agent_search s where s.tsv @@ to_tsquery('simple', ${search}))`
        : sql<string>`(select s.conversation_id from agent_search s where agent_search match ${search})`;
    query = query.where('id', 'in', matches);
  }
  return query.orderBy('last_activity_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Indexes a title or a message text for search (replacing an earlier text of the same document). */
export async function indexSearchDocument(db: Executor, doc: { docId: string; conversationId: string; body: string }): Promise<void> {
  if (isPostgres(db)) {
    await sql`insert into agent_search (doc_id, conversation_id, body) values (${doc.docId}, ${doc.conversationId}, ${doc.body})
      on conflict (doc_id) do update set body = excluded.body`.execute(db);
    return;
  }
  await sql`delete from agent_search where doc_id = ${doc.docId}`.execute(db);
  await sql`insert into agent_search (body, conversation_id, doc_id) values (${doc.body}, ${doc.conversationId}, ${doc.docId})`.execute(db);
}

export async function deleteSearchDocuments(db: Executor, conversationId: string): Promise<void> {
  await sql`delete from agent_search where conversation_id = ${conversationId}`.execute(db);
}

/** Renames by compare-and-set on the version; false when it was stale (or the conversation is gone). */
export async function renameConversation(db: Executor, id: string, expectedVersion: number, title: string, source: 'user' | 'generated', now: number): Promise<boolean> {
  const result = await db
    .updateTable('agent_conversations')
    .set({ title, title_source: source, version: expectedVersion + 1, last_activity_at: now })
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The generated title (rule 19), only while the conversation still has none. */
export async function setGeneratedTitle(db: Executor, id: string, title: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_conversations')
    .set({ title, title_source: 'generated', version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('title_source', 'is', null)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function touchConversation(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('agent_conversations').set({ last_activity_at: now }).where('id', '=', id).execute();
}

/** Takes the conversation's active-run slot for `runId` (rule 1); false when another run holds it. */
export async function claimActiveRun(db: Executor, conversationId: string, runId: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_conversations')
    .set({ active_run_id: runId })
    .where('id', '=', conversationId)
    .where('active_run_id', 'is', null)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Frees the slot if `runId` holds it. */
export async function releaseActiveRun(db: Executor, conversationId: string, runId: string): Promise<void> {
  await db.updateTable('agent_conversations').set({ active_run_id: null }).where('id', '=', conversationId).where('active_run_id', '=', runId).execute();
}

/** The next run number of the conversation (its order among the conversation's runs). */
export async function nextRunNumber(db: Executor, conversationId: string): Promise<number> {
  const row = await db
    .updateTable('agent_conversations')
    .set({ run_count: sql<number>`run_count + 1` })
    .where('id', '=', conversationId)
    .returning('run_count')
    .executeTakeFirstOrThrow();
  return Number(row.run_count);
}

export async function markConversationDeleted(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('agent_conversations').set({ deleted_at: now, active_run_id: null }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
