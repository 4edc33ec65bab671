/**
 * What the Settings page does with one lifecycle webhook destination beyond create and revoke (issue
 * 21 item 17): send a signed `webhook.test` event, read its recent deliveries, and redeliver an event.
 * Every send is an ordinary delivery row plus its job, so a test event and a redelivery are signed,
 * retried and address-checked exactly like the events of runs.
 */
import type { RateLimitSetting } from '../../../config/config.types.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { type RateLimiter, retryAfterSeconds } from '../../../ports/rate-limiter.port.ts';
import type { AgentLibraryStore, AgentWebhookRow, WebhookDeliveryRow } from '../../../ports/agent-library-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import { JOB_QUEUES, newJob } from '../../../domain/jobs/job-catalog.ts';
import { UNFINISHED_ATTEMPT } from '../../webhooks/webhook-delivery.handler.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import { describeDeliveryError } from './delivery-error-words.ts';

export const TEST_EVENT_TYPE = 'webhook.test';
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

export interface AgentWebhookDeliveryView {
  deliveryId: string;
  /** The `webhook-id` header: the same on every attempt and every redelivery of the event. */
  eventId: string;
  eventType: string;
  status: WebhookDeliveryRow['status'];
  attempts: number;
  lastStatusCode: number | null;
  /** Why the last attempt failed, in words; addresses are never shown. */
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface QueuedDelivery {
  deliveryId: string;
  eventId: string;
  /** False when the event was already pending for this destination (a redelivery then adds nothing). */
  queued: boolean;
}

export class AgentWebhookDeliveriesService {
  readonly #store: AgentLibraryStore;
  readonly #uow: UnitOfWork;
  readonly #queue: WorkQueue;
  readonly #limiter: RateLimiter;
  readonly #testLimit: RateLimitSetting;
  readonly #now: () => number;

  constructor(deps: { store: AgentLibraryStore; uow: UnitOfWork; queue: WorkQueue; limiter: RateLimiter; testLimit: RateLimitSetting; now?: () => number }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#queue = deps.queue;
    this.#limiter = deps.limiter;
    this.#testLimit = deps.testLimit;
    this.#now = deps.now ?? Date.now;
  }

  async sendTest(caller: AgentCaller, webhookId: string): Promise<QueuedDelivery> {
    const webhook = await this.#sendable(caller, webhookId);
    await this.#spendAllowance(caller);
    const now = this.#now();
    const eventId = newId('evt', now);
    const createdAt = new Date(now).toISOString();
    const data = { id: eventId, type: TEST_EVENT_TYPE, webhookId: webhook.id, createdAt, data: { message: 'A test event sent from Switchboard; nothing happened.' } };
    const body = { type: TEST_EVENT_TYPE, timestamp: createdAt, data };
    const deliveryId = await this.#uow.transaction((tx) => this.#queueDelivery(tx, { id: newId('whd', now), userId: caller.userId, messageId: eventId, webhook, eventType: TEST_EVENT_TYPE, payloadJson: JSON.stringify(body), now }));
    if (deliveryId === undefined) throw new Error('a test delivery with a fresh event id cannot collide');
    await this.#wake();
    return { deliveryId, eventId, queued: true };
  }

  /** Newest first; the cursor is the last item of the previous page. */
  async list(caller: AgentCaller, webhookId: string, query: { cursor?: string; limit?: string }): Promise<{ items: AgentWebhookDeliveryView[]; nextCursor: string | null }> {
    await this.#owned(caller, webhookId);
    const limit = parseLimit(query.limit);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await this.#store.listDestinationDeliveries(this.#uow.direct, webhookId, caller.userId, limit + 1, after);
    const page = rows.slice(0, limit);
    const lastAttempts = await this.#store.lastAttemptTimes(this.#uow.direct, page.map((row) => row.id));
    const last = page.at(-1);
    return {
      items: page.map((row) => present(row, lastAttempts.get(row.id) ?? null)),
      nextCursor: rows.length > limit && last ? encodeCursor(Number(last.created_at), last.id) : null,
    };
  }

  /**
   * Queues the delivery's event again under the same event id. When that event is already pending
   * for this destination, nothing is added: a delivery waiting for its next retry is brought forward
   * to now, one in flight is left alone.
   */
  async redeliver(caller: AgentCaller, webhookId: string, deliveryId: string): Promise<QueuedDelivery> {
    const webhook = await this.#sendable(caller, webhookId);
    const original = await this.#store.findDestinationDelivery(this.#uow.direct, deliveryId, webhook.id, caller.userId);
    if (!original) throw new AppError('not_found', 'no such delivery of this webhook destination');
    // Every redelivery asked for counts, whatever it queues: each one can make a POST to the URL, and
    // redelivering a delivered event again and again is the same lever as sending test events.
    await this.#spendAllowance(caller);
    const now = this.#now();
    const result = await this.#uow.transaction(async (tx): Promise<QueuedDelivery> => {
      const id = newId('whd', now);
      const queued = await this.#queueDelivery(tx, { id, userId: original.user_id, messageId: original.message_id, webhook, eventType: original.event_type, payloadJson: original.payload_json, now });
      if (queued) return { deliveryId: id, eventId: original.message_id, queued: true };
      const pending = await this.#store.findPendingDestinationDelivery(tx, webhook.id, original.message_id);
      if (!pending) throw new AppError('conflict', 'the pending delivery of this event just ended; ask again');
      await this.#bringForward(tx, pending, now);
      return { deliveryId: pending.id, eventId: original.message_id, queued: false };
    });
    await this.#wake();
    return result;
  }

  /**
   * Test events and redeliveries share one allowance per user (limits.webhookTestsPerUser): both are
   * sends by hand to a URL the user chose, so either could aim a stream of requests at a third party.
   * Spent after the ownership and state checks, so a 404 or 409 uses none of it.
   */
  async #spendAllowance(caller: AgentCaller): Promise<void> {
    const verdict = await this.#limiter.hit(`webhook-test:user:${caller.userId}`, this.#testLimit);
    if (verdict.allowed) return;
    const retryAfter = retryAfterSeconds(verdict);
    throw new AppError('rate_limited', `too many test events and redeliveries sent; try again in ${retryAfter} s`, { retryAfter });
  }

  async #owned(caller: AgentCaller, webhookId: string): Promise<AgentWebhookRow> {
    const row = await this.#store.findAgentWebhook(this.#uow.direct, webhookId);
    const owner = ownerOf(caller);
    if (!row || row.user_id !== owner.userId || row.storefront !== owner.storefront) throw new AppError('not_found', 'webhook destination not found');
    return row;
  }

  async #sendable(caller: AgentCaller, webhookId: string): Promise<AgentWebhookRow> {
    const row = await this.#owned(caller, webhookId);
    if (row.revoked_at !== null) throw new AppError('webhook_revoked', 'this webhook destination was revoked; create a new one');
    if (row.disabled_at !== null) {
      throw new AppError('webhook_disabled', `this webhook destination is disabled (${row.disabled_reason ?? 'no reason recorded'}); create a new one once the receiver works`);
    }
    return row;
  }

  /** A delivery row to the destination and its job (one per delivery); undefined when that event is already pending for it. */
  async #queueDelivery(
    tx: StoreTransaction,
    send: { id: string; userId: string; messageId: string; webhook: AgentWebhookRow; eventType: string; payloadJson: string; now: number },
  ): Promise<string | undefined> {
    const added = await this.#store.addDestinationDelivery(tx, {
      id: send.id,
      user_id: send.userId,
      task_id: null,
      message_id: send.messageId,
      destination_id: send.webhook.id,
      event_type: send.eventType,
      url: send.webhook.url,
      payload_json: send.payloadJson,
      status: 'pending',
      attempts: 0,
      next_attempt_at: send.now,
      last_status_code: null,
      last_error: null,
      created_at: send.now,
      delivered_at: null,
    });
    if (!added) return undefined;
    await this.#queue.enqueue(tx, newJob('webhook', { deliveryId: send.id, userId: send.userId, url: send.webhook.url }, send.now));
    return send.id;
  }

  /** A pending delivery waiting for a retry is due now; one whose attempt is in flight is left to it. */
  async #bringForward(tx: StoreTransaction, pending: WebhookDeliveryRow, now: number): Promise<void> {
    if (pending.next_attempt_at === null || pending.next_attempt_at <= now) return;
    if (pending.attempts > 0 && (await this.#store.attemptError(tx, pending.id, pending.attempts)) === UNFINISHED_ATTEMPT) return;
    if (await this.#store.bringDeliveryForward(tx, pending, now)) await this.#queue.enqueue(tx, newJob('webhook', { deliveryId: pending.id, userId: pending.user_id, url: pending.url }, now));
  }

  async #wake(): Promise<void> {
    // The job is committed: a lost wake only delays it to the workers' next poll.
    await this.#queue.wake(JOB_QUEUES.webhooks).catch(() => undefined);
  }
}

function present(row: WebhookDeliveryRow, lastAttemptAt: number | null): AgentWebhookDeliveryView {
  return {
    deliveryId: row.id,
    eventId: row.message_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: describeDeliveryError(row.last_error),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    lastAttemptAt: lastAttemptAt === null ? null : new Date(lastAttemptAt).toISOString(),
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at !== null ? new Date(Number(row.next_attempt_at)).toISOString() : null,
    deliveredAt: row.delivered_at === null ? null : new Date(Number(row.delivered_at)).toISOString(),
  };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw invalidInput(`limit must be an integer from 1 to ${MAX_PAGE}`, 'limit');
  return n;
}

function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}.${id}`).toString('base64url');
}

function decodeCursor(value: string): { createdAt: number; id: string } {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const createdAt = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(createdAt) || !/^whd_[0-9a-z]{26}$/u.test(id)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { createdAt, id };
}
