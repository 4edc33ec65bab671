import { columnsOfChange, limitsOfRow } from '../../domain/api-key-limit-columns.ts';
import { assertManagementKey, assertMayChange, assertMayCreate, assertMayRevoke, type KeyAuthority, type ManagedKey } from '../../domain/api-key-authority.ts';
import { type ApiKeyLimitsChange, validateLimitsChange } from '../../domain/api-key-limits.ts';
import { generateApiKey } from '../../domain/api-key-format.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ApiKeyRow } from '../../ports/account-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { AccountPorts } from './accounts.service.ts';
import { publishRevoked } from './credential-revocations.ts';

export const API_KEY_REVOKED_TOPIC = 'api-key.revoked';

/** What a create asks for, all optional (no name: 'default'; no limits; not a management key). */
export interface NewApiKeyInput {
  name?: string | undefined;
  limits?: ApiKeyLimitsChange | undefined;
  manageKeys?: boolean | undefined;
  /** An organization's key: the member it belongs to (organizations.service.ts checks who may). */
  memberId?: string | undefined;
}

/** What an update changes; absent fields stay as they are. */
export interface ApiKeyChange {
  name?: string | undefined;
  limits?: ApiKeyLimitsChange | undefined;
  manageKeys?: boolean | undefined;
}

export interface CreatedApiKey {
  row: ApiKeyRow;
  /** The only time the key exists in clear: returned once, never stored. */
  key: string;
}

/**
 * A user's API keys. Every call says who asks (`KeyAuthority`, issue 29, item 1): the owner (the
 * session, the admin API, the CLI) may do anything; an API key only what a management key may
 * (src/domain/api-key-authority.ts). The check is here, not only in the route, so no caller skips it.
 */
export class ApiKeysService {
  private readonly ports: AccountPorts;
  /** Each statement here commits on its own. */
  private readonly db: StoreTransaction;
  private readonly bus: EventBus;
  private readonly onRevoked: (keyHash: string) => void;

  /** `onRevoked` drops the key from this process's cache before the bus message comes back. */
  constructor(ports: AccountPorts, bus: EventBus, onRevoked: (keyHash: string) => void = () => {}) {
    this.ports = ports;
    this.db = ports.uow.direct;
    this.bus = bus;
    this.onRevoked = onRevoked;
  }

  /** Creates a key; an API key creates only a key no wider than itself, never a management key. */
  async create(authority: KeyAuthority, userId: string, input: NewApiKeyInput = {}, now: number = Date.now()): Promise<CreatedApiKey> {
    const acting = await this.actingKey(authority, userId);
    if (acting) assertManagementKey(acting);
    const cleanName = validateName(input.name);
    const limitColumns = columnsOfChange(validateLimitsChange(input.limits ?? {}, now));
    if (!(await this.ports.accounts.findUser(this.db, userId))) throw new AppError('user_not_found', 'user not found');
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
      tpm_limit: null,
      concurrency_limit: null,
      manage_keys: input.manageKeys === true ? 1 : 0,
      member_id: input.memberId ?? null,
      ...limitColumns,
    };
    if (acting) assertMayCreate(acting, managedKeyOf(row));
    await this.ports.accounts.addKey(this.db, row);
    return { row, key: generated.key };
  }

  /** The user's keys; a key that is not a management key sees only itself (its limits and spend). */
  async list(authority: KeyAuthority, userId: string): Promise<ApiKeyRow[]> {
    const acting = await this.actingKey(authority, userId);
    const keys = await this.ports.accounts.listKeys(this.db, userId);
    return acting && !acting.manageKeys ? keys.filter((key) => key.id === acting.id) : keys;
  }

  /** Each key's spend in the calendar month of `now` (the Keys page's column). */
  spendThisMonth(keyIds: readonly string[], now: number = Date.now()): Promise<Map<string, number>> {
    return this.ports.accounts.keySpendInMonth(this.db, keyIds, now);
  }

  /**
   * Renames a key, changes its limits (absent: unchanged, null: cleared) and its management flag;
   * an API key changes only keys it could have created, never itself. Every process drops the key
   * from its auth cache (the revocation topic only drops cache entries), so expiry, models and rates
   * apply at once; the spend cap is read by the ledger in its own transaction.
   */
  async update(authority: KeyAuthority, userId: string, keyId: string, change: ApiKeyChange, now: number = Date.now()): Promise<void> {
    const acting = await this.actingKey(authority, userId);
    if (acting) assertManagementKey(acting);
    const columns = {
      ...(change.name !== undefined ? { name: validateName(change.name) } : {}),
      ...(change.manageKeys !== undefined ? { manage_keys: change.manageKeys ? 1 : 0 } : {}),
      ...columnsOfChange(validateLimitsChange(change.limits ?? {}, now)),
    };
    if (acting) {
      const target = await this.ports.accounts.findKey(this.db, keyId);
      if (!target || target.user_id !== userId) throw new AppError('not_found', 'API key not found');
      assertMayChange(acting, managedKeyOf(target), managedKeyOf({ ...target, ...columns }));
    }
    if (!(await this.ports.accounts.changeKey(this.db, keyId, userId, columns))) throw new AppError('not_found', 'API key not found');
    const key = await this.ports.accounts.findKey(this.db, keyId);
    if (!key) return;
    this.onRevoked(key.key_hash);
    await this.bus.publish(API_KEY_REVOKED_TOPIC, key.key_hash).catch(() => {});
  }

  /**
   * Revokes a key (of `userId` when given; any key for the operator, who gives none). An API key
   * revokes itself or a key it could have created. Idempotent: revoking a revoked key succeeds.
   * Every process drops the key from its auth cache and closes the event streams opened with it.
   * Once the row is revoked the call succeeds: a bus that is away only delays the rest.
   */
  async revoke(authority: KeyAuthority, keyId: string, userId?: string, now: number = Date.now()): Promise<ApiKeyRow> {
    if (authority.by === 'key' && userId === undefined) throw new AppError('forbidden', 'an API key revokes only keys of its own user');
    const acting = userId === undefined ? undefined : await this.actingKey(authority, userId);
    if (acting) assertManagementKey(acting);
    const key = await this.ports.accounts.findKey(this.db, keyId);
    if (!key || (userId !== undefined && key.user_id !== userId)) throw new AppError('not_found', 'API key not found');
    if (acting) assertMayRevoke(acting, managedKeyOf(key));
    await this.ports.accounts.revokeKey(this.db, keyId, userId, now);
    await this.announceRevoked([key]);
    return { ...key, revoked_at: key.revoked_at ?? now };
  }

  /** Drops these keys from every process's auth cache (a limit they carry changed): the next request reads them again. */
  async forgetCached(keys: readonly Pick<ApiKeyRow, 'key_hash'>[]): Promise<void> {
    for (const key of keys) this.onRevoked(key.key_hash);
    await Promise.all(keys.map((key) => this.bus.publish(API_KEY_REVOKED_TOPIC, key.key_hash).catch(() => {})));
  }

  /**
   * Tells every process that these keys, revoked in the store, are gone: each drops them from its
   * auth cache and closes the event streams opened with them (also after a member left, whose keys
   * their removal's transaction revoked). A bus that is away only delays it (the cache's TTL bounds it).
   */
  async announceRevoked(keys: readonly Pick<ApiKeyRow, 'id' | 'key_hash'>[]): Promise<void> {
    if (keys.length === 0) return;
    for (const key of keys) this.onRevoked(key.key_hash);
    await Promise.all(keys.map((key) => this.bus.publish(API_KEY_REVOKED_TOPIC, key.key_hash).catch(() => {})));
    await publishRevoked(this.bus, { apiKeyIds: keys.map((k) => k.id), sessionIds: [] });
  }

  /**
   * The key that asks, read from the store (not the auth cache: a flag or limit just changed counts
   * at once); undefined for the owner. A revoked or expired key, or one of another user, has no
   * authority (it may have ended after the request was authenticated).
   */
  private async actingKey(authority: KeyAuthority, userId: string, now: number = Date.now()): Promise<ManagedKey | undefined> {
    if (authority.by === 'owner') return undefined;
    const row = await this.ports.accounts.findKey(this.db, authority.keyId);
    const ended = !row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now);
    if (ended || row.user_id !== userId) throw new AppError('unauthorized', 'invalid or revoked API key');
    return managedKeyOf(row);
  }
}

function managedKeyOf(row: ApiKeyRow): ManagedKey {
  return { id: row.id, manageKeys: row.manage_keys === 1, limits: limitsOfRow(row) };
}

function validateName(name: string | undefined): string {
  const clean = (name ?? '').trim();
  if (clean.length > 100) throw invalidInput('name must be at most 100 characters', 'name');
  return clean || 'default';
}
