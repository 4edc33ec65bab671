import type { Kysely } from 'kysely';
import {
  findApiKey,
  insertApiKey,
  listApiKeys,
  renameApiKey,
  revokeApiKey,
  updateApiKey,
  type ApiKeyRow,
} from '../../adapters/db/repositories/api-keys.repository.ts';
import { findUserById } from '../../adapters/db/repositories/users.repository.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { columnsOfChange } from '../../adapters/db/repositories/api-key-limits.mapping.ts';
import { keySpendInMonth } from '../../adapters/db/ledger/api-key-spend.repository.ts';
import { type ApiKeyLimitsChange, validateLimitsChange } from '../../domain/api-key-limits.ts';
import { generateApiKey } from '../../domain/api-key-format.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import { publishRevoked } from './credential-revocations.ts';

export const API_KEY_REVOKED_TOPIC = 'api-key.revoked';

export interface CreatedApiKey {
  row: ApiKeyRow;
  /** The only time the key exists in clear: returned once, never stored. */
  key: string;
}

export class ApiKeysService {
  private readonly db: Kysely<Schema>;
  private readonly bus: EventBus;
  private readonly onRevoked: (keyHash: string) => void;

  /** `onRevoked` drops the key from this process's cache before the bus message comes back. */
  constructor(db: Kysely<Schema>, bus: EventBus, onRevoked: (keyHash: string) => void = () => {}) {
    this.db = db;
    this.bus = bus;
    this.onRevoked = onRevoked;
  }

  async create(userId: string, name: string | undefined, now: number = Date.now(), limits: ApiKeyLimitsChange = {}): Promise<CreatedApiKey> {
    const cleanName = validateName(name);
    const limitColumns = columnsOfChange(validateLimitsChange(limits, now));
    if (!(await findUserById(this.db, userId))) throw new AppError('user_not_found', 'user not found');
    const generated = generateApiKey();
    const row: ApiKeyRow = {
      id: newId('key', now),
      user_id: userId,
      name: cleanName,
      prefix: generated.prefix,
      key_hash: generated.hash,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      spend_cap_micro: null,
      spend_cap_period: null,
      expires_at: null,
      allowed_models: null,
      rpm_limit: null,
      concurrency_limit: null,
      ...limitColumns,
    };
    await insertApiKey(this.db, row);
    return { row, key: generated.key };
  }

  list(userId: string): Promise<ApiKeyRow[]> {
    return listApiKeys(this.db, userId);
  }

  /** Each key's spend in the calendar month of `now` (the Keys page's column). */
  spendThisMonth(keyIds: readonly string[], now: number = Date.now()): Promise<Map<string, number>> {
    return keySpendInMonth(this.db, keyIds, now);
  }

  /**
   * Renames a key and changes its limits (absent: unchanged, null: cleared). Every process drops the
   * key from its auth cache (the revocation topic only drops cache entries), so expiry, models and
   * rates apply at once; the spend cap is read by the ledger in its own transaction.
   */
  async update(userId: string, keyId: string, change: { name?: string | undefined; limits?: ApiKeyLimitsChange | undefined }, now: number = Date.now()): Promise<void> {
    const columns = {
      ...(change.name !== undefined ? { name: validateName(change.name) } : {}),
      ...columnsOfChange(validateLimitsChange(change.limits ?? {}, now)),
    };
    if (!(await updateApiKey(this.db, keyId, userId, columns))) throw new AppError('not_found', 'API key not found');
    const key = await findApiKey(this.db, keyId);
    if (!key) return;
    this.onRevoked(key.key_hash);
    await this.bus.publish(API_KEY_REVOKED_TOPIC, key.key_hash).catch(() => {});
  }

  async rename(userId: string, keyId: string, name: string): Promise<void> {
    if (!(await renameApiKey(this.db, keyId, userId, validateName(name)))) throw new AppError('not_found', 'API key not found');
  }

  /**
   * Revokes a key (of `userId` when given, any key for the admin). Idempotent: revoking a revoked
   * key succeeds. Every process drops the key from its auth cache and closes the event streams
   * opened with it. Once the row is revoked the call succeeds: a bus that is away only delays the rest.
   */
  async revoke(keyId: string, userId?: string, now: number = Date.now()): Promise<ApiKeyRow> {
    const key = await findApiKey(this.db, keyId);
    if (!key || (userId !== undefined && key.user_id !== userId)) throw new AppError('not_found', 'API key not found');
    await revokeApiKey(this.db, keyId, userId, now);
    this.onRevoked(key.key_hash);
    await this.bus.publish(API_KEY_REVOKED_TOPIC, key.key_hash).catch(() => {});
    await publishRevoked(this.bus, { apiKeyIds: [keyId], sessionIds: [] });
    return { ...key, revoked_at: key.revoked_at ?? now };
  }
}

function validateName(name: string | undefined): string {
  const clean = (name ?? '').trim();
  if (clean.length > 100) throw invalidInput('name must be at most 100 characters', 'name');
  return clean || 'default';
}
