import { limitsOfRow } from '../../domain/api-key-limit-columns.ts';
import type { ApiKeyLimits } from '../../domain/api-key-limits.ts';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-key-format.ts';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { AccountPorts } from './accounts.service.ts';
import { API_KEY_REVOKED_TOPIC } from './api-keys.service.ts';

export interface ApiKeyIdentity {
  keyId: string;
  userId: string;
  /** Checked at the door (expiry, models, rates); the spend cap is the ledger's (migration 027). */
  limits: ApiKeyLimits;
  /** The account's tokens per minute over all its keys (an organization's, migration 044); null: none. */
  accountTokensPerMinute: number | null;
}

/** The account a cached key spends from, and that account's tokens per minute. */
export interface KeyAccountLimit {
  accountId: string;
  tokensPerMinute: number | null;
}

interface CacheEntry extends ApiKeyIdentity {
  expiresAt: number;
  verifiedAt: number;
  hash: string;
}

const CACHE_TTL_MS = 30_000;
/** While revocation messages may be lost (the bus is down), a cached key is trusted this long only. */
const UNRELIABLE_BUS_TTL_MS = 2_000;
const CACHE_MAX = 50_000;
const LAST_USED_FLUSH_MS = 5_000;

/**
 * Resolves bearer keys to users. A verified key is cached for 30 s; a revocation anywhere removes it
 * from every process at once through the event bus, and the TTL bounds the damage if that message is
 * lost (2 s while the bus is down or just back, when such messages may be lost). Last-used times are collected in memory and written every few seconds, so authentication
 * costs no write.
 */
export class ApiKeyAuthenticator {
  private readonly accounts: AccountStore;
  /** The store outside any transaction, taken once: a lookup costs its one query and nothing more. */
  private readonly db: StoreTransaction;
  private readonly bus: EventBus;
  /** By the key itself, so a hit costs no hashing; `byHash` finds the entry a revocation names. */
  private readonly cache = new Map<string, CacheEntry>();
  private readonly byHash = new Map<string, string>();
  private readonly lastUsed = new Map<string, number>();
  /** The limits of the keys in the cache, by key id (the door reads them: key-door.ts). */
  private readonly limitsById = new Map<string, ApiKeyLimits>();
  private readonly accountById = new Map<string, KeyAccountLimit>();
  private flushTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(ports: AccountPorts, bus: EventBus) {
    this.accounts = ports.accounts;
    this.db = ports.uow.direct;
    this.bus = bus;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(API_KEY_REVOKED_TOPIC, (hash) => this.forget(hash));
    this.flushTimer = setInterval(() => void this.flushLastUsed().catch(() => {}), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.unsubscribe?.();
    await this.flushLastUsed();
  }

  /** The cached identity of a key, without touching the store; undefined when it must be looked up. */
  cached(key: string, now: number = Date.now()): ApiKeyIdentity | undefined {
    const entry = this.cache.get(key);
    if (!entry || entry.expiresAt <= now) return undefined;
    if (now - entry.verifiedAt > UNRELIABLE_BUS_TTL_MS && !this.bus.reliable()) return undefined;
    this.lastUsed.set(entry.keyId, now);
    return entry;
  }

  async authenticate(key: string, now: number = Date.now()): Promise<ApiKeyIdentity | undefined> {
    const hit = this.cached(key, now);
    if (hit) return hit;
    if (!looksLikeApiKey(key)) return undefined;
    const hash = hashApiKey(key);
    const row = await this.accounts.findActiveKeyByHash(this.db, hash, now);
    if (!row) {
      this.forget(hash);
      return undefined;
    }
    if (this.cache.size >= CACHE_MAX) {
      this.cache.clear();
      this.byHash.clear();
      this.limitsById.clear();
      this.accountById.clear();
    }
    // An expiring key leaves the cache when it expires: from then on it is invalid (401).
    const limits = limitsOfRow(row);
    const expiresAt = Math.min(now + CACHE_TTL_MS, limits.expiresAt ?? Number.POSITIVE_INFINITY);
    const entry: CacheEntry = { keyId: row.id, userId: row.user_id, limits, accountTokensPerMinute: row.account_tpm_limit, expiresAt, verifiedAt: now, hash };
    this.cache.set(key, entry);
    this.byHash.set(hash, key);
    this.limitsById.set(entry.keyId, limits);
    this.accountById.set(entry.keyId, { accountId: row.user_id, tokensPerMinute: row.account_tpm_limit });
    this.lastUsed.set(entry.keyId, now);
    return entry;
  }

  /** Drops a key at once in this process (the revoking process does not wait for the bus). */
  forget(keyHash: string): void {
    const key = this.byHash.get(keyHash);
    if (key === undefined) return;
    this.byHash.delete(keyHash);
    const entry = this.cache.get(key);
    if (entry) {
      this.limitsById.delete(entry.keyId);
      this.accountById.delete(entry.keyId);
    }
    this.cache.delete(key);
  }

  /** The limits of a key this process has in its cache; undefined when it must be read from the store. */
  limitsOf(keyId: string): ApiKeyLimits | undefined {
    return this.limitsById.get(keyId);
  }

  /** The account of a key this process has in its cache, with its tokens per minute; undefined otherwise. */
  accountLimitOf(keyId: string): KeyAccountLimit | undefined {
    return this.accountById.get(keyId);
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = new Map(this.lastUsed);
    this.lastUsed.clear();
    await this.accounts.touchKeys(this.db, batch);
  }
}
