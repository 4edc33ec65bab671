import type { Executor } from '../../schema.ts';
import type { AgentArtifactsTable } from '../../tables/agent.tables.ts';

export type ArtifactRow = AgentArtifactsTable;

/** One artifact per generated file: (generation, output index) is unique, so a retried settlement adds none. */
export async function insertArtifactOnce(db: Executor, row: ArtifactRow): Promise<boolean> {
  const result = await db
    .insertInto('agent_artifacts')
    .values(row)
    .onConflict((oc) => oc.columns(['generation_id', 'output_index']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function listRunArtifacts(db: Executor, runId: string): Promise<ArtifactRow[]> {
  return db.selectFrom('agent_artifacts').selectAll().where('run_id', '=', runId).orderBy('created_at').orderBy('id').execute();
}

export async function listConversationArtifacts(db: Executor, conversationId: string, ids: string[]): Promise<ArtifactRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('agent_artifacts').selectAll().where('conversation_id', '=', conversationId).where('id', 'in', ids).execute();
}

/** An artifact of this user on this storefront whose conversation still exists. */
export async function findOwnedArtifact(db: Executor, owner: { userId: string; storefront: string }, id: string): Promise<ArtifactRow | undefined> {
  return db
    .selectFrom('agent_artifacts as a')
    .innerJoin('agent_conversations as c', 'c.id', 'a.conversation_id')
    .selectAll('a')
    .where('a.id', '=', id)
    .where('a.user_id', '=', owner.userId)
    .where('a.storefront', '=', owner.storefront)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The user's newest unexpired artifacts on this storefront, newest first, from conversations that still exist. */
export async function listRecentOwnedArtifacts(db: Executor, owner: { userId: string; storefront: string }, now: number, limit: number): Promise<ArtifactRow[]> {
  return db
    .selectFrom('agent_artifacts as a')
    .innerJoin('agent_conversations as c', 'c.id', 'a.conversation_id')
    .selectAll('a')
    .where('a.user_id', '=', owner.userId)
    .where('a.storefront', '=', owner.storefront)
    .where('c.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('a.expires_at', 'is', null), eb('a.expires_at', '>', now)]))
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
}

/** The conversation's newest artifacts, oldest first. */
export async function listRecentConversationArtifacts(db: Executor, conversationId: string, limit: number): Promise<ArtifactRow[]> {
  const rows = await db.selectFrom('agent_artifacts').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.reverse();
}
