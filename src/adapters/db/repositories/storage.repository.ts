/**
 * Paid storage (migration 019). Rows come back as numbers on both engines (open-database.ts parses
 * PostgreSQL's BIGINT and NUMERIC), so nothing here converts. Quota is changed only by guarded
 * updates: a reservation succeeds when the subscription is active and the bytes fit, in one statement,
 * so concurrent writers can never pass the quota (PostgreSQL re-checks the condition on the locked
 * row; SQLite has one writer).
 */
import { sql } from 'kysely';
import type { StorageChargeAggregate } from '../../../ports/stats-store.port.ts';
import type { FileCursor } from '../../../ports/storage-store.port.ts';
import type { Executor } from '../schema.ts';
import type {
  StorageChargesTable,
  StorageFilesTable,
  StorageOperationsTable,
  StorageQuotesTable,
  StorageSubscriptionsTable,
} from '../tables/storage.tables.ts';

export type StorageSubscriptionRow = StorageSubscriptionsTable;
export type StorageQuoteRow = StorageQuotesTable;
export type StorageChargeRow = StorageChargesTable;
export type StorageFileRow = StorageFilesTable;
export type StorageOperationRow = StorageOperationsTable;

// Subscriptions

export async function findSubscription(db: Executor, userId: string): Promise<StorageSubscriptionRow | undefined> {
  const row = await db.selectFrom('storage_subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row;
}

/** The first subscription of a user; false when one exists already (a concurrent subscribe won). */
export async function insertSubscription(db: Executor, row: StorageSubscriptionRow): Promise<boolean> {
  const result = await db.insertInto('storage_subscriptions').values(row).onConflict((oc) => oc.column('user_id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Compare-and-set on the version: true when this writer moved it from `version` to `version + 1`. */
export async function updateSubscriptionAtVersion(
  db: Executor,
  userId: string,
  version: number,
  changes: Partial<Omit<StorageSubscriptionRow, 'user_id' | 'version'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('storage_subscriptions')
    .set({ ...changes, version: version + 1 })
    .where('user_id', '=', userId)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Takes `bytes` of quota when the subscription is active and they fit; false otherwise. */
export async function reserveQuota(db: Executor, userId: string, bytes: number): Promise<boolean> {
  const result = await db
    .updateTable('storage_subscriptions')
    .set({ used_bytes: sql`used_bytes + ${bytes}` })
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .where(sql<boolean>`used_bytes + ${bytes} <= quota_bytes`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseQuota(db: Executor, userId: string, bytes: number): Promise<void> {
  await db
    .updateTable('storage_subscriptions')
    .set({ used_bytes: sql`case when used_bytes >= ${bytes} then used_bytes - ${bytes} else 0 end` })
    .where('user_id', '=', userId)
    .execute();
}

export async function listDueRenewals(db: Executor, now: number, limit: number): Promise<StorageSubscriptionRow[]> {
  const rows = await db.selectFrom('storage_subscriptions').selectAll().where('status', '=', 'active').where('period_end', '<=', now).orderBy('period_end').limit(limit).execute();
  return rows;
}

/**
 * The key a renewal of `row` is charged through: its renewal key while that key is live (neither
 * revoked nor expired at `now`), else null (the user's plan renews without a key: revoking a key is
 * not cancelling storage).
 */
export async function liveRenewalKey(db: Executor, row: Pick<StorageSubscriptionRow, 'api_key_id'>, now: number): Promise<string | null> {
  if (row.api_key_id === null) return null;
  const key = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', row.api_key_id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return key?.id ?? null;
}

export async function listExpiredGrace(db: Executor, now: number, limit: number): Promise<StorageSubscriptionRow[]> {
  const rows = await db.selectFrom('storage_subscriptions').selectAll().where('status', '=', 'grace').where('grace_ends_at', '<=', now).orderBy('grace_ends_at').limit(limit).execute();
  return rows;
}

// Quotes

export async function insertQuote(db: Executor, row: StorageQuoteRow): Promise<void> {
  await db.insertInto('storage_quotes').values(row).execute();
}

export async function findQuote(db: Executor, userId: string, id: string): Promise<StorageQuoteRow | undefined> {
  const row = await db.selectFrom('storage_quotes').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return row;
}

/** A quote is used at most once: true for the one caller that marks it. */
export async function markQuoteUsed(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('storage_quotes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Charges

export async function insertCharge(db: Executor, row: StorageChargeRow): Promise<void> {
  await db.insertInto('storage_charges').values(row).execute();
}

export async function listCharges(db: Executor, userId: string, limit: number): Promise<StorageChargeRow[]> {
  const rows = await db.selectFrom('storage_charges').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows;
}

export type { StorageChargeAggregate } from '../../../ports/stats-store.port.ts';

const DAY_OF = sql<number>`created_at / ${sql.lit(86_400_000)}`;

/** Storage charges made on UTC days firstDay..lastDay, per day and plan (GET /stats). */
export async function aggregateStorageCharges(db: Executor, userId: string, firstDay: number, lastDay: number): Promise<StorageChargeAggregate[]> {
  const rows = await db
    .selectFrom('storage_charges')
    .select((eb) => [DAY_OF.as('day'), 'plan_id', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('amount_micro').as('cost')])
    .where('user_id', '=', userId)
    .where(DAY_OF, '>=', firstDay)
    .where(DAY_OF, '<=', lastDay)
    .groupBy([DAY_OF, 'plan_id'])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), planId: r.plan_id, count: Number(r.n), costMicro: Number(r.cost ?? 0) }));
}

// Files

/** One file per operation: false when the operation's file exists already (a retried copy). */
export async function insertFileOnce(db: Executor, row: StorageFileRow): Promise<boolean> {
  const result = await db.insertInto('storage_files').values(row).onConflict((oc) => oc.column('operation_id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findFile(db: Executor, userId: string, id: string): Promise<StorageFileRow | undefined> {
  const row = await db.selectFrom('storage_files').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return row;
}

export type { FileCursor } from '../../../ports/storage-store.port.ts';

/** Available files, newest first; `projectId` narrows to one project's assets. */
export async function listFiles(db: Executor, userId: string, limit: number, after?: FileCursor, projectId?: string): Promise<StorageFileRow[]> {
  let query = db.selectFrom('storage_files').selectAll().where('user_id', '=', userId).where('status', '=', 'available');
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows;
}

/** Available → deleted, once (and the project asset it is): the caller that wins frees the quota. */
export async function markFileDeleted(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('storage_files').set({ status: 'deleted', deleted_at: now }).where('id', '=', id).where('status', '=', 'available').executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await db.updateTable('agent_project_assets').set({ deleted_at: now }).where('id', '=', id).where('deleted_at', 'is', null).execute();
  return true;
}

/** Every available file of a user → deleted (a lapsed subscription), with the project assets they are; their bytes go by the purge. */
export async function markUserFilesDeleted(db: Executor, userId: string, now: number): Promise<number> {
  await db
    .updateTable('agent_project_assets')
    .set({ deleted_at: now })
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where('id', 'in', (eb) => eb.selectFrom('storage_files').select('id').where('user_id', '=', userId).where('status', '=', 'available'))
    .execute();
  const result = await db.updateTable('storage_files').set({ status: 'deleted', deleted_at: now }).where('user_id', '=', userId).where('status', '=', 'available').executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function listUnpurgedFiles(db: Executor, limit: number): Promise<StorageFileRow[]> {
  const rows = await db.selectFrom('storage_files').selectAll().where('status', '=', 'deleted').where('purged_at', 'is', null).orderBy('deleted_at').limit(limit).execute();
  return rows;
}

export async function markFilePurged(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('storage_files').set({ purged_at: now }).where('id', '=', id).where('purged_at', 'is', null).execute();
}

export async function sumAvailableBytes(db: Executor, userId: string): Promise<number> {
  const row = await db.selectFrom('storage_files').select((eb) => eb.fn.sum<number>('size_bytes').as('bytes')).where('user_id', '=', userId).where('status', '=', 'available').executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

// Operations

export async function insertOperation(db: Executor, row: StorageOperationRow): Promise<void> {
  await db.insertInto('storage_operations').values(row).execute();
}

export async function findOperation(db: Executor, id: string): Promise<StorageOperationRow | undefined> {
  const row = await db.selectFrom('storage_operations').selectAll().where('id', '=', id).executeTakeFirst();
  return row;
}

/** pending → completed or failed, once. */
export async function finishOperation(
  db: Executor,
  id: string,
  outcome: { status: 'completed'; fileId: string } | { status: 'failed'; errorCode: string; errorMessage: string },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('storage_operations')
    .set(
      outcome.status === 'completed'
        ? { status: 'completed', file_id: outcome.fileId, finished_at: now }
        : { status: 'failed', error_code: outcome.errorCode, error_message: outcome.errorMessage, finished_at: now },
    )
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Sources

/** File `position` of a generation of `userId`, as stored (deleted or expired rows included: the caller decides). */
export async function findOwnedGenerationFile(db: Executor, userId: string, taskId: string, position: number) {
  return db
    .selectFrom('stored_files as f')
    .innerJoin('tasks as t', 't.id', 'f.task_id')
    .select(['f.blob_key', 'f.content_type', 'f.bytes', 'f.expires_at', 'f.deleted_at'])
    .where('t.id', '=', taskId)
    .where('t.user_id', '=', userId)
    .where('f.position', '=', position)
    .executeTakeFirst();
}
