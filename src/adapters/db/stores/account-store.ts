import type { Kysely } from 'kysely';
import { type NewUser, newAccountOf } from '../../../domain/accounts/new-account.ts';
import { AppError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { newWebhookSecret } from '../../../domain/webhook-secret.ts';
import type { AccountStore, ApiKeyColumnsChange, ApiKeyRow, NewAccount, UserRow } from '../../../ports/account-store.port.ts';
import type { LedgerBook } from '../../../ports/ledger.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { isUniqueViolation } from '../db-errors.ts';
import { keySpendInMonth } from '../ledger/api-key-spend.repository.ts';
import { kyselyLedgerBook } from '../ledger/ledger-book.ts';
import { type ActiveKeyRow, findActiveKeyByHash, findApiKey, findRevokedKeyIds, insertApiKey, listApiKeys, revokeApiKey, touchApiKeys, updateApiKey } from '../repositories/api-keys.repository.ts';
import { countUsers, findUserByEmail, findUserById, insertUser } from '../repositories/users.repository.ts';
import { type Schema, executorOf } from '../schema.ts';

/** The account store over Kysely, for SQLite and PostgreSQL alike; the opening balance goes through `ledger`. */
export class KyselyAccountStore implements AccountStore {
  readonly #ledger: LedgerBook;

  constructor(ledger: LedgerBook) {
    this.#ledger = ledger;
  }

  async openAccount(tx: StoreTransaction, account: NewAccount, now: number): Promise<UserRow> {
    const db = executorOf(tx);
    const row: UserRow = {
      id: newId('usr', now),
      email: account.email,
      password_hash: account.passwordHash,
      is_admin: account.isAdmin ? 1 : 0,
      balance_micro: 0,
      held_micro: 0,
      webhook_secret: newWebhookSecret(),
      created_at: now,
    };
    const taken = () => new AppError('conflict', `a user with email ${account.email} already exists`);
    if (account.email && (await findUserByEmail(db, account.email))) throw taken();
    try {
      await insertUser(db, row);
    } catch (error) {
      // A concurrent opening with the same email won the unique index.
      if (account.email && isUniqueViolation(error)) throw taken();
      throw error;
    }
    if (account.openingBalanceMicro > 0) {
      await this.#ledger.post(tx, { userId: row.id, kind: 'initial_credit', reference: row.id, amountMicro: account.openingBalanceMicro, note: 'opening balance' }, now);
    }
    return { ...row, balance_micro: account.openingBalanceMicro };
  }

  findUser(tx: StoreTransaction, id: string): Promise<UserRow | undefined> {
    return findUserById(executorOf(tx), id);
  }

  findUserByEmail(tx: StoreTransaction, email: string): Promise<UserRow | undefined> {
    return findUserByEmail(executorOf(tx), email);
  }

  countUsers(tx: StoreTransaction): Promise<number> {
    return countUsers(executorOf(tx));
  }

  addKey(tx: StoreTransaction, row: ApiKeyRow): Promise<void> {
    return insertApiKey(executorOf(tx), row);
  }

  findKey(tx: StoreTransaction, id: string): Promise<ApiKeyRow | undefined> {
    return findApiKey(executorOf(tx), id);
  }

  findActiveKeyByHash(tx: StoreTransaction, keyHash: string, now: number): Promise<ActiveKeyRow | undefined> {
    return findActiveKeyByHash(executorOf(tx), keyHash, now);
  }

  listKeys(tx: StoreTransaction, userId: string): Promise<ApiKeyRow[]> {
    return listApiKeys(executorOf(tx), userId);
  }

  changeKey(tx: StoreTransaction, id: string, userId: string, columns: ApiKeyColumnsChange): Promise<boolean> {
    return updateApiKey(executorOf(tx), id, userId, columns);
  }

  revokeKey(tx: StoreTransaction, id: string, userId: string | undefined, now: number): Promise<boolean> {
    return revokeApiKey(executorOf(tx), id, userId, now);
  }

  touchKeys(tx: StoreTransaction, lastUsed: ReadonlyMap<string, number>): Promise<void> {
    return touchApiKeys(executorOf(tx), lastUsed);
  }

  keySpendInMonth(tx: StoreTransaction, keyIds: readonly string[], at: number): Promise<Map<string, number>> {
    return keySpendInMonth(executorOf(tx), keyIds, at);
  }

  async countUnfinishedTasksOfKey(tx: StoreTransaction, keyId: string): Promise<number> {
    const row = await executorOf(tx)
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('api_key_id', '=', keyId)
      .where('status', 'in', ['not_started', 'processing'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  findRevokedKeyIds(tx: StoreTransaction, ids: readonly string[]): Promise<string[]> {
    return findRevokedKeyIds(executorOf(tx), ids);
  }
}

/** The store behind createUser (stateless, so one serves every database handle). */
const RAW_DB_ACCOUNTS = new KyselyAccountStore(kyselyLedgerBook);

/**
 * Creates a user and, when it starts with money, the ledger entry that explains the balance, in its
 * own transaction: for the tools and tests that hold the raw database (services take the ports).
 */
export function createUser(db: Kysely<Schema>, input: NewUser, now: number = Date.now()): Promise<UserRow> {
  const account = newAccountOf(input);
  return db.transaction().execute((tx) => RAW_DB_ACCOUNTS.openAccount(tx, account, now));
}

/** The user, or user_not_found: for the tools and routes that hold the raw database. */
export async function getUser(db: StoreTransaction, id: string): Promise<UserRow> {
  const user = await RAW_DB_ACCOUNTS.findUser(db, id);
  if (!user) throw new AppError('user_not_found', 'user not found');
  return user;
}
