import type { Kysely } from 'kysely';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { WebhookStore } from '../../../ports/webhook-store.port.ts';
import { executorOf, type Schema } from '../schema.ts';
import { kyselyUnitOfWork } from './kysely-unit-of-work.ts';

/** The webhooks' store over Kysely, for SQLite and PostgreSQL alike. */
export const kyselyWebhookStore: WebhookStore = {
  async insertDelivery(tx, row) {
    const inserted = await executorOf(tx)
      .insertInto('webhook_deliveries')
      .values(row)
      // Not a caught unique violation: on PostgreSQL that would abort the caller's transaction.
      .onConflict((oc) => oc.columns(['task_id', 'event_type']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  },

  findDelivery: (tx, id) => executorOf(tx).selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst(),

  listDeliveries(tx, userId, options) {
    let query = executorOf(tx).selectFrom('webhook_deliveries').selectAll().where('user_id', '=', userId);
    if (options.taskId !== undefined) query = query.where('task_id', '=', options.taskId);
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
  },

  async listAttempts(tx, deliveryIds) {
    if (deliveryIds.length === 0) return [];
    return executorOf(tx).selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt_no').execute();
  },

  async claimAttempt(tx, deliveryId, attemptsMade, holdUntil, attempt) {
    const db = executorOf(tx);
    const updated = await db
      .updateTable('webhook_deliveries')
      .set({ attempts: attempt.attempt_no, next_attempt_at: holdUntil })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .where('attempts', '=', attemptsMade)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await db.insertInto('webhook_attempts').values(attempt).execute();
    return true;
  },

  async endAttempt(tx, attemptId, end) {
    await executorOf(tx).updateTable('webhook_attempts').set(end).where('id', '=', attemptId).execute();
  },

  async endDelivery(tx, deliveryId, attemptNo, end) {
    await executorOf(tx).updateTable('webhook_deliveries').set(end).where('id', '=', deliveryId).where('attempts', '=', attemptNo).where('status', '=', 'pending').execute();
  },

  async failPendingDelivery(tx, deliveryId, lastError) {
    await executorOf(tx)
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: lastError })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  },

  findWebhookSecrets: (tx, userId) =>
    executorOf(tx).selectFrom('users').select(['webhook_secret', 'webhook_secret_previous', 'webhook_secret_rotated_at']).where('id', '=', userId).executeTakeFirst(),

  async replaceWebhookSecrets(tx, userId, expectedCurrent, next) {
    const result = await executorOf(tx).updateTable('users').set(next).where('id', '=', userId).where('webhook_secret', '=', expectedCurrent).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};

/** The webhooks' ports over one Kysely handle: the store and its unit of work. */
export function kyselyWebhookPorts(db: Kysely<Schema>): { webhooks: WebhookStore; uow: UnitOfWork } {
  return { webhooks: kyselyWebhookStore, uow: kyselyUnitOfWork(db) };
}
