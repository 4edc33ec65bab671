/**
 * The webhooks' store as the delivery services see it (docs/architecture.md, "The store behind
 * ports"): deliveries and their attempts, and the users' signing secrets. Every method takes the
 * transaction first: `UnitOfWork.direct` for a statement alone, or the `tx` of the transaction that
 * must commit with it (a delivery is written with the task move that caused it).
 *
 * A delivery's attempts are claimed and ended by compare-and-set on its attempt count and status,
 * so two workers running the same job (a lease lost under load) never both send attempt n.
 */
import type { UsersRow } from './store-rows/foundation.rows.ts';
import type { WebhookAttemptsRow, WebhookDeliveriesRow } from './store-rows/media.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type WebhookDeliveryRow = WebhookDeliveriesRow;
export type WebhookAttemptRow = WebhookAttemptsRow;

/** A user's signing secrets as their row holds them. */
export type WebhookSecretColumns = Pick<UsersRow, 'webhook_secret' | 'webhook_secret_previous' | 'webhook_secret_rotated_at'>;

/** What an attempt's end writes on its delivery. */
export type DeliveryEnd = Partial<Pick<WebhookDeliveryRow, 'status' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'delivered_at'>>;

/** What an attempt's end writes on its own row. */
export type AttemptEnd = Pick<WebhookAttemptRow, 'duration_ms' | 'status_code' | 'error'>;

export interface WebhookStore {
  /** Writes a delivery; false (and nothing written) when its (task, event type) already has one. */
  insertDelivery(tx: StoreTransaction, row: WebhookDeliveryRow): Promise<boolean>;
  findDelivery(tx: StoreTransaction, id: string): Promise<WebhookDeliveryRow | undefined>;
  /** A user's deliveries, newest first, of one task when `taskId` is given. */
  listDeliveries(tx: StoreTransaction, userId: string, options: { taskId?: string; limit: number }): Promise<WebhookDeliveryRow[]>;
  /** The attempts of these deliveries, by delivery then in the order they were made. */
  listAttempts(tx: StoreTransaction, deliveryIds: string[]): Promise<WebhookAttemptRow[]>;
  /**
   * Claims attempt `attempt.attempt_no` of a pending delivery that has made `attemptsMade` attempts
   * (compare-and-set on both): counts it, holds the delivery until `holdUntil`, and records the
   * attempt's row. False when another worker moved the delivery first: nothing was written.
   */
  claimAttempt(tx: StoreTransaction, deliveryId: string, attemptsMade: number, holdUntil: number, attempt: WebhookAttemptRow): Promise<boolean>;
  /** Records how an attempt ended, on its row. */
  endAttempt(tx: StoreTransaction, attemptId: string, end: AttemptEnd): Promise<void>;
  /** Writes the result of attempt `attemptNo` on its delivery, only while the delivery is still pending at that attempt. */
  endDelivery(tx: StoreTransaction, deliveryId: string, attemptNo: number, end: DeliveryEnd): Promise<void>;
  /** Marks a pending delivery failed (compare-and-set on `pending`): the give-up of a poisoned job. */
  failPendingDelivery(tx: StoreTransaction, deliveryId: string, lastError: string): Promise<void>;
  /** A user's signing secrets; undefined when there is no such user. */
  findWebhookSecrets(tx: StoreTransaction, userId: string): Promise<WebhookSecretColumns | undefined>;
  /**
   * Replaces the user's secrets, only if the current one is still `expectedCurrent` (compare-and-set,
   * so two concurrent rotations cannot both keep their old one). True when this call made the change.
   */
  replaceWebhookSecrets(tx: StoreTransaction, userId: string, expectedCurrent: string, next: WebhookSecretColumns): Promise<boolean>;
}
