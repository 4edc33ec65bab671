import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { WebhookSecretColumns, WebhookStore } from '../../ports/webhook-store.port.ts';
import { AppError } from '../../domain/errors.ts';
import { newWebhookSecret } from '../../domain/webhook-secret.ts';

/**
 * After a rotation the replaced secret keeps signing, beside the new one, for 24 hours: every delivery
 * in that window carries two signatures (Standard Webhooks separates them with a space), so a receiver
 * verifies whichever secret it holds and can switch at its own pace without losing a delivery.
 */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 3_600_000;

const ROTATE_TRIES = 5;

export interface WebhookSecretView {
  secret: string;
  /** ISO time until which the replaced secret also signs; absent when no rotation is in its grace period. */
  previousSecretValidUntil?: string;
}

type SecretColumns = WebhookSecretColumns;

/** Where the secrets are kept: the webhooks' store and its transactions. */
export interface WebhookSecretPorts {
  webhooks: WebhookStore;
  uow: UnitOfWork;
}

/** The secrets that sign now: the current one first, then the replaced one while its grace lasts. */
export function activeWebhookSecrets(row: SecretColumns, now: number, graceMs: number = WEBHOOK_SECRET_GRACE_MS): string[] {
  const until = previousValidUntil(row, graceMs);
  return until !== undefined && now < until && row.webhook_secret_previous ? [row.webhook_secret, row.webhook_secret_previous] : [row.webhook_secret];
}

function previousValidUntil(row: SecretColumns, graceMs: number): number | undefined {
  if (!row.webhook_secret_previous || row.webhook_secret_rotated_at === null || row.webhook_secret_rotated_at === undefined) return undefined;
  return row.webhook_secret_rotated_at + graceMs;
}

/**
 * The per-user secret that signs completion webhooks (users.webhook_secret, made with the user).
 * Rotating twice within the grace period drops the oldest secret at once: only the last replaced one
 * is kept.
 */
export class WebhookSecretService {
  private readonly webhooks: WebhookStore;
  private readonly direct: StoreTransaction;
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(ports: WebhookSecretPorts, options: { graceMs?: number; now?: () => number } = {}) {
    this.webhooks = ports.webhooks;
    this.direct = ports.uow.direct;
    this.graceMs = options.graceMs ?? WEBHOOK_SECRET_GRACE_MS;
    this.now = options.now ?? Date.now;
  }

  async get(userId: string): Promise<WebhookSecretView> {
    const row = await this.webhooks.findWebhookSecrets(this.direct, userId);
    if (!row) throw new AppError('user_not_found', 'user not found');
    return this.view(row);
  }

  /** A new secret; the old one signs too until the grace period ends. */
  async rotate(userId: string): Promise<WebhookSecretView> {
    for (let i = 0; i < ROTATE_TRIES; i++) {
      const row = await this.webhooks.findWebhookSecrets(this.direct, userId);
      if (!row) throw new AppError('user_not_found', 'user not found');
      const now = this.now();
      const next: SecretColumns = { webhook_secret: newWebhookSecret(), webhook_secret_previous: row.webhook_secret, webhook_secret_rotated_at: now };
      // Compare-and-set on the secret we read, so two concurrent rotations cannot both keep "their" old one.
      if (await this.webhooks.replaceWebhookSecrets(this.direct, userId, row.webhook_secret, next)) return this.view(next);
    }
    throw new AppError('conflict', 'the webhook secret was rotated concurrently; try again');
  }

  /** The secrets to sign with now (current first); empty when the user does not exist. */
  async signingSecrets(userId: string, tx: StoreTransaction = this.direct): Promise<string[]> {
    const row = await this.webhooks.findWebhookSecrets(tx, userId);
    return row ? activeWebhookSecrets(row, this.now(), this.graceMs) : [];
  }

  private view(row: SecretColumns): WebhookSecretView {
    const until = previousValidUntil(row, this.graceMs);
    return until !== undefined && this.now() < until
      ? { secret: row.webhook_secret, previousSecretValidUntil: new Date(until).toISOString() }
      : { secret: row.webhook_secret };
  }
}
