import type { Executor } from '../../schema.ts';
import type { AgentWebhooksTable } from '../../tables/agent.tables.ts';

export type AgentWebhookRow = AgentWebhooksTable;

export async function insertAgentWebhook(db: Executor, row: AgentWebhookRow): Promise<void> {
  await db.insertInto('agent_webhooks').values(row).execute();
}

/** Live destinations of a user on a storefront (not revoked, not disabled). */
export async function listLiveAgentWebhooks(db: Executor, userId: string, storefront: string): Promise<AgentWebhookRow[]> {
  return db
    .selectFrom('agent_webhooks')
    .selectAll()
    .where('user_id', '=', userId)
    .where('storefront', '=', storefront)
    .where('revoked_at', 'is', null)
    .where('disabled_at', 'is', null)
    .execute();
}

export async function listAgentWebhooks(db: Executor, userId: string, storefront: string): Promise<AgentWebhookRow[]> {
  return db
    .selectFrom('agent_webhooks')
    .selectAll()
    .where('user_id', '=', userId)
    .where('storefront', '=', storefront)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function findAgentWebhook(db: Executor, id: string): Promise<AgentWebhookRow | undefined> {
  return db.selectFrom('agent_webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function revokeAgentWebhook(db: Executor, id: string, userId: string, storefront: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('agent_webhooks')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('storefront', '=', storefront)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes every live destination scoped to a project (the project was deleted). */
export async function revokeProjectWebhooks(db: Executor, projectId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('agent_webhooks')
    .set({ revoked_at: now })
    .where('scope', '=', 'project')
    .where('scope_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A delivered attempt: the destination is healthy again. */
export async function markAgentWebhookHealthy(db: Executor, id: string): Promise<void> {
  await db.updateTable('agent_webhooks').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/** A failed attempt: remembers when failures began (the first failure since the last success). */
export async function markAgentWebhookFailing(db: Executor, id: string, now: number): Promise<AgentWebhookRow | undefined> {
  await db.updateTable('agent_webhooks').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
  return findAgentWebhook(db, id);
}

export async function disableAgentWebhook(db: Executor, id: string, reason: string, now: number): Promise<void> {
  await db.updateTable('agent_webhooks').set({ disabled_at: now, disabled_reason: reason }).where('id', '=', id).where('disabled_at', 'is', null).execute();
}
