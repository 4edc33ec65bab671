/** The storage tables as Kysely sees them: the rows of ports/store-rows/storage.rows.ts, with the columns the database fills. */
import type { StorageChargesRow, StorageFilesRow, StorageOperationsRow, StorageQuotesRow, StorageSubscriptionsRow } from '../../../ports/store-rows/storage.rows.ts';

export type { StorageSubscriptionStatus, StorageFileKind, StorageSourceType, StorageOperationStatus } from '../../../ports/store-rows/storage.rows.ts';

export type StorageSubscriptionsTable = StorageSubscriptionsRow;
export type StorageQuotesTable = StorageQuotesRow;
export type StorageChargesTable = StorageChargesRow;
export type StorageFilesTable = StorageFilesRow;
export type StorageOperationsTable = StorageOperationsRow;

export interface StorageTables {
  storage_subscriptions: StorageSubscriptionsTable;
  storage_quotes: StorageQuotesTable;
  storage_charges: StorageChargesTable;
  storage_files: StorageFilesTable;
  storage_operations: StorageOperationsTable;
}
