import type { Kysely } from 'kysely';
import type {
  ApiKeyAggregate,
  ChatAggregate,
  ExportCursor,
  GenerationFilter,
  ListCursor,
  StatsCheckpoint,
  StatsStore,
  StorageChargeAggregate,
  TaskAggregate,
} from '../../../ports/stats-store.port.ts';
import type { LedgerEntriesRow, UsersRow } from '../../../ports/store-rows/foundation.rows.ts';
import type { TasksRow } from '../../../ports/store-rows/media.rows.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { readSnapshot } from '../read-snapshot.ts';
import { listUserTasks } from '../repositories/generation-list.repository.ts';
import * as stats from '../repositories/stats.repository.ts';
import { aggregateStorageCharges } from '../repositories/storage.repository.ts';
import { apiKeyNames, ledgerEntriesBetween, memberEmails } from '../repositories/usage-export.repository.ts';
import { findUserById } from '../repositories/users.repository.ts';
import { executorOf, type Schema } from '../schema.ts';

/**
 * The statistics' store over Kysely, for SQLite and PostgreSQL alike. It holds the database handle
 * because a snapshot is a transaction of its own kind (read only, repeatable read on PostgreSQL).
 */
export class KyselyStatsStore implements StatsStore {
  readonly #db: Kysely<Schema>;

  constructor(db: Kysely<Schema>) {
    this.#db = db;
  }

  readSnapshot<T>(reads: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return readSnapshot(this.#db, (tx) => reads(tx));
  }

  findUser(tx: StoreTransaction, userId: string): Promise<UsersRow | undefined> {
    return findUserById(executorOf(tx), userId);
  }

  aggregateTasks(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<TaskAggregate[]> {
    return stats.aggregateTasks(executorOf(tx), userId, firstDay, lastDay);
  }

  aggregateChat(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<ChatAggregate[]> {
    return stats.aggregateChat(executorOf(tx), userId, firstDay, lastDay);
  }

  aggregateStorageCharges(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<StorageChargeAggregate[]> {
    return aggregateStorageCharges(executorOf(tx), userId, firstDay, lastDay);
  }

  aggregateByApiKey(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<ApiKeyAggregate[]> {
    return stats.aggregateByApiKey(executorOf(tx), userId, firstDay, lastDay);
  }

  spentBetweenDays(tx: StoreTransaction, userId: string, afterDay: number, throughDay: number): Promise<number> {
    return stats.spentBetweenDays(executorOf(tx), userId, afterDay, throughDay);
  }

  firstOpenDay(tx: StoreTransaction, userId: string, afterDay: number, throughDay: number): Promise<number | undefined> {
    return stats.firstOpenDay(executorOf(tx), userId, afterDay, throughDay);
  }

  findCheckpoint(tx: StoreTransaction, userId: string): Promise<StatsCheckpoint | undefined> {
    return stats.findCheckpoint(executorOf(tx), userId);
  }

  advanceCheckpoint(tx: StoreTransaction, userId: string, from: StatsCheckpoint | undefined, to: StatsCheckpoint, now: number): Promise<void> {
    return stats.advanceCheckpoint(executorOf(tx), userId, from, to, now);
  }

  listUserTasks(tx: StoreTransaction, userId: string, filter: GenerationFilter, limit: number, after?: ListCursor): Promise<TasksRow[]> {
    return listUserTasks(executorOf(tx), userId, filter, limit, after);
  }

  memberEmails(tx: StoreTransaction, accountId: string): Promise<Map<string, string>> {
    return memberEmails(executorOf(tx), accountId);
  }

  ledgerEntriesBetween(tx: StoreTransaction, userId: string, startMs: number, endMs: number, limit: number, cursor?: ExportCursor): Promise<LedgerEntriesRow[]> {
    return ledgerEntriesBetween(executorOf(tx), userId, startMs, endMs, limit, cursor);
  }

  apiKeyNames(tx: StoreTransaction, userId: string): Promise<Map<string, string>> {
    return apiKeyNames(executorOf(tx), userId);
  }
}
