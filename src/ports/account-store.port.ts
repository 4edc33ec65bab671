/**
 * Users and their API keys as the account services see them (docs/architecture.md, "The store behind
 * ports"): the account and its opening balance, keys with their limits and spend, and which keys are
 * revoked. Every method takes the transaction first: `UnitOfWork.direct` for a lone statement, or the
 * `tx` of `UnitOfWork.transaction`. Sessions and sign-in links are the auth store's
 * (auth-store.port.ts). test/contract/account-store.contract.test.ts runs it on both engines.
 */
import type { NewAccount } from '../domain/accounts/new-account.ts';
import type { ApiKeysRow, UsersRow } from './store-rows/foundation.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type { NewAccount } from '../domain/accounts/new-account.ts';
export type UserRow = UsersRow;
export type ApiKeyRow = ApiKeysRow;

/** What an update of a key may change: everything but who it is and whose. */
export type ApiKeyColumnsChange = Partial<Omit<ApiKeysRow, 'id' | 'user_id' | 'key_hash' | 'prefix' | 'created_at'>>;

export interface AccountStore {
  /**
   * Opens an account in the caller's transaction: the user's row and, when it starts with money, the
   * `initial_credit` entry that explains the balance. An email already taken (also by a concurrent
   * opening) throws `conflict`, and nothing is written.
   */
  openAccount(tx: StoreTransaction, account: NewAccount, now: number): Promise<UserRow>;
  findUser(tx: StoreTransaction, id: string): Promise<UserRow | undefined>;
  /** By email, as normalised (lower case). */
  findUserByEmail(tx: StoreTransaction, email: string): Promise<UserRow | undefined>;
  countUsers(tx: StoreTransaction): Promise<number>;

  addKey(tx: StoreTransaction, row: ApiKeyRow): Promise<void>;
  findKey(tx: StoreTransaction, id: string): Promise<ApiKeyRow | undefined>;
  /**
   * The key with this SHA-256, unless it is revoked or expired at `now` (the authenticator's one read),
   * with its account's tokens per minute (an organization's limit over all its keys; null: none).
   */
  findActiveKeyByHash(tx: StoreTransaction, keyHash: string, now: number): Promise<(ApiKeyRow & { account_tpm_limit: number | null }) | undefined>;
  listKeys(tx: StoreTransaction, userId: string): Promise<ApiKeyRow[]>;
  /** Changes a key of `userId`; false when the user has no such key. */
  changeKey(tx: StoreTransaction, id: string, userId: string, columns: ApiKeyColumnsChange): Promise<boolean>;
  /**
   * Revokes a key (of `userId` when given) by compare-and-set on `revoked_at`: true for the call that
   * revoked it, false when it was revoked already (its first revocation time stays) or is not there.
   */
  revokeKey(tx: StoreTransaction, id: string, userId: string | undefined, now: number): Promise<boolean>;
  /** Records when keys were last used (batched by the authenticator). */
  touchKeys(tx: StoreTransaction, lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** Each key's spend in the calendar month of `at` (what the ledger counted against its cap). */
  keySpendInMonth(tx: StoreTransaction, keyIds: readonly string[], at: number): Promise<Map<string, number>>;
  /** The key's media tasks not finished yet (they count against its concurrency at the door). */
  countUnfinishedTasksOfKey(tx: StoreTransaction, keyId: string): Promise<number>;
  /** Which of these keys are revoked (the re-check of open event streams). */
  findRevokedKeyIds(tx: StoreTransaction, ids: readonly string[]): Promise<string[]>;
}
