/**
 * The deliveries of one lifecycle webhook destination as its Settings page sees them (issue 21 item
 * 17): the recent ones, a redelivery of an event, and bringing a pending retry forward.
 */
import { sql } from 'kysely';
import type { Executor } from '../../schema.ts';
import type { WebhookDeliveriesTable } from '../../tables/media.tables.ts';

export type WebhookDeliveryRow = WebhookDeliveriesTable;

/** Newest first, after the cursor (the last item of the previous page). */
export async function listDestinationDeliveries(
  db: Executor,
  destinationId: string,
  userId: string,
  limit: number,
  after: { createdAt: number; id: string } | undefined,
): Promise<WebhookDeliveryRow[]> {
  let select = db.selectFrom('webhook_deliveries').selectAll().where('destination_id', '=', destinationId).where('user_id', '=', userId);
  if (after) select = select.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findDestinationDelivery(db: Executor, deliveryId: string, destinationId: string, userId: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('destination_id', '=', destinationId).where('user_id', '=', userId).executeTakeFirst();
}

/** When each delivery's last attempt started. */
export async function lastAttemptTimes(db: Executor, deliveryIds: string[]): Promise<Map<string, number>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', (eb) => eb.fn.max('started_at').as('last')])
    .where('delivery_id', 'in', deliveryIds)
    .groupBy('delivery_id')
    .execute();
  return new Map(rows.map((row) => [row.delivery_id, Number(row.last)]));
}

/** A delivery to a destination, unless that event is already pending for it. False: nothing was added. */
export async function insertDestinationDelivery(db: Executor, row: WebhookDeliveryRow): Promise<boolean> {
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values(row)
    // The partial unique index of migration 029: one pending delivery per (destination, event). Its
    // predicate is written as literals: SQLite matches the index only on the same text, not a parameter.
    .onConflict((oc) => oc.columns(['destination_id', 'message_id']).where('status', '=', sql.lit('pending')).where('destination_id', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findPendingDestinationDelivery(db: Executor, destinationId: string, messageId: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('destination_id', '=', destinationId).where('message_id', '=', messageId).where('status', '=', 'pending').executeTakeFirst();
}

export async function attemptError(db: Executor, deliveryId: string, attemptNo: number): Promise<string | null | undefined> {
  const row = await db.selectFrom('webhook_attempts').select('error').where('delivery_id', '=', deliveryId).where('attempt_no', '=', attemptNo).executeTakeFirst();
  return row?.error;
}

/** Compare-and-set on what was read: a worker that claimed the attempt meanwhile keeps its hold. */
export async function bringDeliveryForward(db: Executor, pending: WebhookDeliveryRow, now: number): Promise<boolean> {
  if (pending.next_attempt_at === null) return false;
  const moved = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('id', '=', pending.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', pending.attempts)
    .where('next_attempt_at', '=', pending.next_attempt_at)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}
