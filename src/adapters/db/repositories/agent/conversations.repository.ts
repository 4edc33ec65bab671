import { sql } from 'kysely';
import { isPostgres } from '../../dialect-of.ts';
import type { Executor } from '../../schema.ts';
import type { AgentConversationsTable } from '../../tables/agent.tables.ts';

export type ConversationRow = Omit<AgentConversationsTable, 'event_seq' | 'run_count' | 'context_json' | 'context_version'> & {
  event_seq: number;
  run_count: number;
  context_json: string;
  context_version: number;
};
export async function insertConversation(db: Executor, row: ConversationRow): Promise<void> {
  await db.insertInto('agent_conversations').values(row).execute();
}

/** Replaces the context references by compare-and-set on their version; false when it was stale. */
export async function setContextReferences(db: Executor, id: string, expectedVersion: number, contextJson: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_conversations')
    .set({ context_json: contextJson, context_version: expectedVersion + 1 })
    .where('id', '=', id)
    .where('context_version', '=', expectedVersion)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface ContextFragment {
  conversationId: string;
  messageId: string;
  body: string;
  createdAt: number;
}

/**
 * Full-text search (FTS5 / PostgreSQL) over the messages of the given conversations written up to
 * `until`, only where the conversation is still this owner's and not deleted: a reference never reads
 * more than its owner may.
 */
export async function searchContext(
  db: Executor,
  owner: { userId: string; storefront: string },
  sources: Array<{ conversationId: string; until: number }>,
  expression: string,
  limit: number,
): Promise<ContextFragment[]> {
  if (sources.length === 0) return [];
  const match = isPostgres(db) ? sql`s.tsv @@ to_tsquery('simple', ${expression})` : sql`agent_search match ${expression}`;
  const bounds = sql.join(sources.map((s) => sql`(m.conversation_id = ${s.conversationId} and m.created_at <= ${s.until})`), sql` or `);
  const rows = await sql<{ conversation_id: string; doc_id: string; body: string; created_at: number | string }>`
    select m.conversation_id, s.doc_id, s.body, m.created_at
    from agent_search s
    join agent_messages m on m.id = s.doc_id
    join agent_conversations c on c.id = m.conversation_id
    where ${match} and (${bounds})
      and c.user_id = ${owner.userId} and c.storefront = ${owner.storefront} and c.deleted_at is null
    order by m.created_at desc
    limit ${limit}`.execute(db);
  return rows.rows.map((r) => ({ conversationId: r.conversation_id, messageId: r.doc_id, body: r.body, createdAt: Number(r.created_at) }));
}

/** One message of the sources, under the same bounds as searchContext. */
export async function readContextMessage(
  db: Executor,
  owner: { userId: string; storefront: string },
  sources: Array<{ conversationId: string; until: number }>,
  messageId: string,
): Promise<{ conversationId: string; text: string } | undefined> {
  const row = await db
    .selectFrom('agent_messages as m')
    .innerJoin('agent_conversations as c', 'c.id', 'm.conversation_id')
    .select(['m.conversation_id', 'm.text', 'm.created_at'])
    .where('m.id', '=', messageId)
    .where('c.user_id', '=', owner.userId)
    .where('c.storefront', '=', owner.storefront)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const source = sources.find((s) => s.conversationId === row.conversation_id);
  if (!source || Number(row.created_at) > source.until) return undefined;
  return { conversationId: row.conversation_id, text: row.text };
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

/** One page by latest activity, newest first; `search` restricts it to the matches of a search, `projectId` to a project's. */
export async function listConversations(
  db: Executor,
  owner: { userId: string; storefront: string },
  limit: number,
  after: ConversationCursor | undefined,
  search: string | undefined,
  projectId?: string,
): Promise<ConversationRow[]> {
  let query = db
    .selectFrom('agent_conversations')
    .selectAll()
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null);
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
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
