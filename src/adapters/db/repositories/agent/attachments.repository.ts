import { type AttachmentStatus, attachmentMovableFrom } from '../../../../domain/agent/attachment-status.ts';
import type { Executor } from '../../schema.ts';
import type { AgentAttachmentsTable } from '../../tables/agent.tables.ts';

export type AttachmentRow = AgentAttachmentsTable;

export async function insertAttachment(db: Executor, row: AttachmentRow): Promise<void> {
  await db.insertInto('agent_attachments').values(row).execute();
}

/** An attachment of this user on this storefront whose conversation still exists. */
export async function findOwnedAttachment(db: Executor, owner: { userId: string; storefront: string }, id: string): Promise<AttachmentRow | undefined> {
  const row = await db
    .selectFrom('agent_attachments as a')
    .innerJoin('agent_conversations as c', 'c.id', 'a.conversation_id')
    .selectAll('a')
    .where('a.id', '=', id)
    .where('a.user_id', '=', owner.userId)
    .where('a.storefront', '=', owner.storefront)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  return row && normalize(row);
}

/**
 * A playground upload of this user on this storefront: an attachment row under the scope
 * `conversationId` that no conversation has (docs/decisions.md, "Playground uploads").
 */
export async function findOwnedScopedAttachment(db: Executor, owner: { userId: string; storefront: string }, scope: string, id: string): Promise<AttachmentRow | undefined> {
  const row = await db
    .selectFrom('agent_attachments')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('conversation_id', '=', scope)
    .executeTakeFirst();
  return row && normalize(row);
}

/** For the upload URL, which carries no credentials: the signature names the attachment. */
export async function findAttachment(db: Executor, id: string): Promise<AttachmentRow | undefined> {
  const row = await db.selectFrom('agent_attachments').selectAll().where('id', '=', id).executeTakeFirst();
  return row && normalize(row);
}

export async function listAttachments(db: Executor, conversationId: string, ids: string[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('agent_attachments').selectAll().where('conversation_id', '=', conversationId).where('id', 'in', ids).execute();
  return rows.map(normalize);
}

/** pending → completed, once: the original is immutable from here on. */
export async function markAttachmentCompleted(db: Executor, id: string, fields: { blob_key: string; facts_json: string; text_excerpt: string | null; sha256: string; completed_at: number; expires_at: number }): Promise<boolean> {
  const result = await db
    .updateTable('agent_attachments')
    .set({ status: 'completed', ...fields })
    .where('id', '=', id)
    .where('status', 'in', attachmentMovableFrom('completed'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The text a run reads of an original completed before it was kept at completion; set once. */
export async function setAttachmentText(db: Executor, id: string, text: string): Promise<void> {
  await db.updateTable('agent_attachments').set({ text_excerpt: text }).where('id', '=', id).where('text_excerpt', 'is', null).execute();
}

/** Uploads never completed in time and completed references past their lifetime, oldest first. */
export async function listExpiredAttachments(db: Executor, now: number, limit: number): Promise<AttachmentRow[]> {
  const pending = await db.selectFrom('agent_attachments').selectAll().where('status', '=', 'pending').where('upload_expires_at', '<=', now).orderBy('upload_expires_at').limit(limit).execute();
  const completed = await db.selectFrom('agent_attachments').selectAll().where('status', '=', 'completed').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
  return [...pending, ...completed].map(normalize);
}

/** Compare-and-set from the status that was read: a completion racing the cleanup wins or loses whole. */
export async function markAttachmentExpired(db: Executor, id: string, from: AttachmentStatus): Promise<boolean> {
  const allowed = attachmentMovableFrom('expired', [from]);
  if (allowed.length === 0) return false;
  const result = await db.updateTable('agent_attachments').set({ status: 'expired' }).where('id', '=', id).where('status', 'in', allowed).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** PostgreSQL returns bigint columns as strings. */
function normalize(row: AttachmentRow): AttachmentRow {
  return {
    ...row,
    size_bytes: Number(row.size_bytes),
    created_at: Number(row.created_at),
    upload_expires_at: Number(row.upload_expires_at),
    completed_at: row.completed_at === null ? null : Number(row.completed_at),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
  };
}
