import type { Kysely } from 'kysely';
import type { Executor, Schema } from '../../adapters/db/schema.ts';
import type { UsersTable } from '../../adapters/db/tables/foundation.tables.ts';
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

type SecretColumns = Pick<UsersTable, 'webhook_secret' | 'webhook_secret_previous' | 'webhook_secret_rotated_at'>;

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
  private readonly db: Kysely<Schema>;
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(db: Kysely<Schema>, options: { graceMs?: number; now?: () => number } = {}) {
    this.db = db;
    this.graceMs = options.graceMs ?? WEBHOOK_SECRET_GRACE_MS;
    this.now = options.now ?? Date.now;
  }

  async get(userId: string): Promise<WebhookSecretView> {
    const row = await this.secretsRow(this.db, userId);
    if (!row) throw new AppError('user_not_found', 'user not found');
    return this.view(row);
  }

  /** A new secret; the old one signs too until the grace period ends. */
  async rotate(userId: string): Promise<WebhookSecretView> {
    for (let i = 0; i < ROTATE_TRIES; i++) {
      const row = await this.secretsRow(this.db, userId);
      if (!row) throw new AppError('user_not_found', 'user not found');
      const now = this.now();
      const next: SecretColumns = { webhook_secret: newWebhookSecret(), webhook_secret_previous: row.webhook_secret, webhook_secret_rotated_at: now };
      // Compare-and-set on the secret we read, so two concurrent rotations cannot both keep "their" old one.
      const result = await this.db.updateTable('users').set(next).where('id', '=', userId).where('webhook_secret', '=', row.webhook_secret).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) return this.view(next);
    }
    throw new AppError('conflict', 'the webhook secret was rotated concurrently; try again');
  }

  /** The secrets to sign with now (current first); empty when the user does not exist. */
  async signingSecrets(userId: string, db: Executor = this.db): Promise<string[]> {
    const row = await this.secretsRow(db, userId);
    return row ? activeWebhookSecrets(row, this.now(), this.graceMs) : [];
  }

  private view(row: SecretColumns): WebhookSecretView {
    const until = previousValidUntil(row, this.graceMs);
    return until !== undefined && this.now() < until
      ? { secret: row.webhook_secret, previousSecretValidUntil: new Date(until).toISOString() }
      : { secret: row.webhook_secret };
  }

  private secretsRow(db: Executor, userId: string): Promise<SecretColumns | undefined> {
    return db
      .selectFrom('users')
      .select(['webhook_secret', 'webhook_secret_previous', 'webhook_secret_rotated_at'])
      .where('id', '=', userId)
      .executeTakeFirst();
  }
}
