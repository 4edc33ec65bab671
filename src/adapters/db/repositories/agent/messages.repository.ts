import type { Executor } from '../../schema.ts';
import type { AgentMessagesTable } from '../../tables/agent.tables.ts';

export type MessageRow = AgentMessagesTable;

/** Inserts unless (conversation, clientMessageId) exists; true when inserted. */
export async function insertMessageOnce(db: Executor, row: MessageRow): Promise<boolean> {
  const result = await db
    .insertInto('agent_messages')
    .values(row)
    .onConflict((oc) => oc.columns(['conversation_id', 'client_message_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findMessageByClientId(db: Executor, conversationId: string, clientMessageId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom('agent_messages')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where('client_message_id', '=', clientMessageId)
    .executeTakeFirst();
}

export async function setMessageResponse(db: Executor, id: string, response: unknown): Promise<void> {
  await db.updateTable('agent_messages').set({ response_json: JSON.stringify(response) }).where('id', '=', id).execute();
}

export async function findMessage(db: Executor, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('agent_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A conversation's messages in order; `beforeId` pages backwards from the newest. */
export async function listMessages(db: Executor, conversationId: string, limit: number, beforeId?: string): Promise<MessageRow[]> {
  let query = db.selectFrom('agent_messages').selectAll().where('conversation_id', '=', conversationId);
  if (beforeId) query = query.where('id', '<', beforeId);
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.reverse();
}

export async function deleteMessages(db: Executor, conversationId: string): Promise<void> {
  await db.deleteFrom('agent_messages').where('conversation_id', '=', conversationId).execute();
}
