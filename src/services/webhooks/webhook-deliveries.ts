import { newId } from '../../domain/ids.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookStore } from '../../ports/webhook-store.port.ts';
import type { WorkQueue } from '../../ports/work-queue.port.ts';
import { newJob } from '../../domain/jobs/job-catalog.ts';

/** Where a new delivery goes: its row in the webhook store, its job in the queue (one transaction). */
export interface WebhookOutbox {
  store: WebhookStore;
  queue: WorkQueue;
}

export interface TaskWebhookArgs {
  userId: string;
  taskId: string;
  /** What happened, e.g. `task.finished`; one delivery per (taskId, eventType). */
  eventType: string;
  url: string;
  /** The task status response `{code, data}`; sent as JSON (a string is taken as the JSON text itself). */
  body: unknown;
  now: number;
}

/**
 * Records the completion webhook of a task and its job, in the caller's transaction (the one that moved
 * the task into its terminal status), so the webhook is sent if and only if that change commits.
 * At most one delivery per (taskId, eventType): a second call returns undefined and adds nothing.
 * Returns the new delivery's id; call `queue.wake(JOB_QUEUES.webhooks)` after the commit.
 */
export function enqueueTaskWebhook(tx: StoreTransaction, outbox: WebhookOutbox, args: TaskWebhookArgs): Promise<string | undefined> {
  return enqueueWebhookDelivery(tx, outbox, { ...args, destinationId: null });
}

export interface NewWebhookDelivery {
  userId: string;
  taskId?: string | null;
  /** `webhook-id`; defaults to the delivery id. An event sent to several destinations keeps one id. */
  messageId?: string;
  /** An agent destination that signs with its own secret (the handler's resolver must know it). */
  destinationId?: string | null;
  eventType: string;
  url: string;
  body: unknown;
  now: number;
}

/** The general form, for other senders (agent lifecycle webhooks): a delivery row plus its job (one per delivery). */
export async function enqueueWebhookDelivery(tx: StoreTransaction, outbox: WebhookOutbox, args: NewWebhookDelivery): Promise<string | undefined> {
  const id = newId('whd', args.now);
  const payload = payloadText(args.body);
  const inserted = await outbox.store.insertDelivery(tx, {
    id,
    user_id: args.userId,
    task_id: args.taskId ?? null,
    message_id: args.messageId ?? id,
    destination_id: args.destinationId ?? null,
    event_type: args.eventType,
    url: args.url,
    payload_json: payload,
    status: 'pending',
    attempts: 0,
    next_attempt_at: args.now,
    last_status_code: null,
    last_error: null,
    created_at: args.now,
    delivered_at: null,
  });
  if (!inserted) return undefined;
  await outbox.queue.enqueue(tx, newJob('webhook', { deliveryId: id, userId: args.userId, url: args.url }, args.now));
  return id;
}

function payloadText(body: unknown): string {
  if (typeof body === 'string') {
    JSON.parse(body);
    return body;
  }
  const text = JSON.stringify(body);
  if (text === undefined) throw new TypeError('a webhook body must be JSON-serialisable');
  return text;
}

export interface WebhookAttemptView {
  attemptNo: number;
  startedAt: string;
  durationMs: number;
  /** The receiver's status; null when no response came. */
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  taskId: string | null;
  eventType: string;
  url: string;
  /** `pending` (will be attempted at `nextAttemptAt`), `delivered`, or `failed` (no more attempts). */
  status: WebhookDeliveryRow['status'];
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attempts: WebhookAttemptView[];
}

export const MAX_DELIVERY_LIST = 200;

/** Where the deliveries are read: the webhooks' store and its transactions. */
export interface WebhookDeliveryPorts {
  webhooks: WebhookStore;
  uow: UnitOfWork;
}

/** A user's deliveries, newest first, each with its attempts in order (the dashboard's list). */
export async function listDeliveries(ports: WebhookDeliveryPorts, userId: string, options: { taskId?: string; limit?: number } = {}): Promise<WebhookDeliveryView[]> {
  const limit = Math.min(Math.max(1, options.limit ?? 50), MAX_DELIVERY_LIST);
  const { webhooks, uow } = ports;
  const deliveries = await webhooks.listDeliveries(uow.direct, userId, { ...(options.taskId !== undefined ? { taskId: options.taskId } : {}), limit });
  if (deliveries.length === 0) return [];
  const attempts = await webhooks.listAttempts(
    uow.direct,
    deliveries.map((d) => d.id),
  );
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.delivery_id, list);
  }
  return deliveries.map((d) => presentDelivery(d, byDelivery.get(d.id) ?? []));
}

/** The webhook deliveries of one task of this user (another user's task gives an empty list). */
export function listDeliveriesForTask(ports: WebhookDeliveryPorts, userId: string, taskId: string): Promise<WebhookDeliveryView[]> {
  return listDeliveries(ports, userId, { taskId, limit: MAX_DELIVERY_LIST });
}

function iso(ms: number): string;
function iso(ms: number | null): string | null;
function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function presentDelivery(d: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): WebhookDeliveryView {
  return {
    id: d.id,
    taskId: d.task_id,
    eventType: d.event_type,
    url: d.url,
    status: d.status,
    attemptCount: d.attempts,
    nextAttemptAt: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    createdAt: iso(d.created_at),
    deliveredAt: iso(d.delivered_at),
    attempts: attempts.map((a) => ({
      attemptNo: a.attempt_no,
      startedAt: iso(a.started_at),
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
    })),
  };
}
