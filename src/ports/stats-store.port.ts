/**
 * The statistics' store as its services see it (docs/architecture.md, "The store behind ports"): the
 * aggregates of GET /stats (computed by the database over its covering indexes), the checkpoint of
 * settled spend, the generation list and the pages of the CSV export. Every method takes the
 * transaction first (`UnitOfWork.direct` for a lone read); `readSnapshot` runs several reads on one
 * snapshot, so that figures read together always agree.
 */
import type { TaskStatus } from '../domain/tasks/task-status.ts';
import type { LedgerEntriesRow, UsersRow } from './store-rows/foundation.rows.ts';
import type { TasksRow } from './store-rows/media.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

/** Tasks of one (UTC day, model, type, status). */
export interface TaskAggregate {
  day: number;
  model: string;
  type: string;
  status: string;
  count: number;
  costMicro: number;
}

/** Settled chat requests of one (UTC day, model). */
export interface ChatAggregate {
  day: number;
  model: string;
  count: number;
  costMicro: number;
  tokens: number;
}

/** Storage charges of one (UTC day, plan). */
export interface StorageChargeAggregate {
  day: number;
  planId: string;
  count: number;
  costMicro: number;
}

export interface ApiKeyAggregate {
  /** Null: made from the dashboard (a session), or a generation created before migration 018. */
  apiKeyId: string | null;
  count: number;
  costMicro: number;
}

/** Everything spent through `throughDay` (a UTC day number), once no cost of those days can change. */
export interface StatsCheckpoint {
  throughDay: number;
  spentMicro: number;
}

export interface GenerationFilter {
  statuses?: TaskStatus[];
  model?: string;
  type?: string;
  /** created_at >= startMs */
  startMs?: number;
  /** created_at < endMs */
  endMs?: number;
}

/** Position after the last row of a page: rows are ordered by (created_at, id), newest first. */
export interface ListCursor {
  createdAt: number;
  id: string;
}

/** Where a page of an export left off: the last row's time and id (rows come newest first). */
export type ExportCursor = ListCursor;

export interface StatsStore {
  /** Runs `reads` on one snapshot of the store: none of them sees a write the others do not. */
  readSnapshot<T>(reads: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** The user (its balance and holds). */
  findUser(tx: StoreTransaction, userId: string): Promise<UsersRow | undefined>;
  /** Tasks created on UTC days firstDay..lastDay, per day, model, type and status. */
  aggregateTasks(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<TaskAggregate[]>;
  /** Chat requests on UTC days firstDay..lastDay, per day and model. */
  aggregateChat(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<ChatAggregate[]>;
  /** Storage charges made on UTC days firstDay..lastDay, per day and plan. */
  aggregateStorageCharges(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<StorageChargeAggregate[]>;
  /** Generations, chat requests and storage charges on UTC days firstDay..lastDay, per API key. */
  aggregateByApiKey(tx: StoreTransaction, userId: string, firstDay: number, lastDay: number): Promise<ApiKeyAggregate[]>;
  /** What was spent on the days after `afterDay` through `throughDay`. */
  spentBetweenDays(tx: StoreTransaction, userId: string, afterDay: number, throughDay: number): Promise<number>;
  /** The first day after `afterDay` (through `throughDay`) that holds a cost that may still change. */
  firstOpenDay(tx: StoreTransaction, userId: string, afterDay: number, throughDay: number): Promise<number | undefined>;
  findCheckpoint(tx: StoreTransaction, userId: string): Promise<StatsCheckpoint | undefined>;
  /** Moves the checkpoint forward from `from` (compare-and-set; a concurrent writer that moved it first wins). */
  advanceCheckpoint(tx: StoreTransaction, userId: string, from: StatsCheckpoint | undefined, to: StatsCheckpoint, now: number): Promise<void>;
  /** One page of a user's tasks, newest first, after `after`. */
  listUserTasks(tx: StoreTransaction, userId: string, filter: GenerationFilter, limit: number, after?: ListCursor): Promise<TasksRow[]>;
  /** A page of one user's ledger entries written in [startMs, endMs), newest first, after `cursor`. */
  ledgerEntriesBetween(tx: StoreTransaction, userId: string, startMs: number, endMs: number, limit: number, cursor?: ExportCursor): Promise<LedgerEntriesRow[]>;
  /** The names of a user's API keys by id (revoked ones too: an export covers the past). */
  apiKeyNames(tx: StoreTransaction, userId: string): Promise<Map<string, string>>;
  /** An organization's members named in its books (by their keys, revoked ones too): email by member id. */
  memberEmails(tx: StoreTransaction, accountId: string): Promise<Map<string, string>>;
}
