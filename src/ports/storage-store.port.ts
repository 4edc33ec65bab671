/**
 * Paid storage's store as its services see it (docs/architecture.md, "The store behind ports"):
 * subscriptions and their compare-and-set on the version, quotes, charges, files, copy operations,
 * the sources a copy may come from, and the idempotency records of its endpoints. Every method takes
 * the transaction first: `UnitOfWork.direct` for a lone statement, or the `tx` of
 * `UnitOfWork.transaction` for writes that commit together (a renewal, its ledger entry, its charge).
 *
 * Money is not written here: charges are debited through the LedgerBook port in the same transaction;
 * the store records the charge row (unique by reference, as the ledger entry is by (kind, reference)).
 */
import type { AgentArtifactsRow, AgentAttachmentsRow } from './store-rows/agent.rows.ts';
import type { AgentProjectAssetsRow, AgentProjectsRow } from './store-rows/agent-projects.rows.ts';
import type { UsersRow } from './store-rows/foundation.rows.ts';
import type { StorageChargesRow, StorageFilesRow, StorageOperationsRow, StorageQuotesRow, StorageSubscriptionsRow } from './store-rows/storage.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type { StorageSourceType } from './store-rows/storage.rows.ts';
export type StorageSubscriptionRow = StorageSubscriptionsRow;
export type StorageQuoteRow = StorageQuotesRow;
export type StorageChargeRow = StorageChargesRow;
export type StorageFileRow = StorageFilesRow;
export type StorageOperationRow = StorageOperationsRow;

/** What a compare-and-set on a subscription's version may change (never its user or its version). */
export type SubscriptionChanges = Partial<Omit<StorageSubscriptionRow, 'user_id' | 'version'>>;

/** Where a page of files left off: the last row's time and id (files come newest first). */
export interface FileCursor {
  createdAt: number;
  id: string;
}

/** How a copy operation ended. */
export type OperationOutcome = { status: 'completed'; fileId: string } | { status: 'failed'; errorCode: string; errorMessage: string };

/** A generation's stored file, as stored (deleted or expired ones included: the caller decides). */
export interface GenerationFileSource {
  blob_key: string;
  content_type: string;
  bytes: number;
  expires_at: number;
  deleted_at: number | null;
}

/** The owner of a storefront's rows (artifacts, uploads, projects). */
export interface StorefrontOwner {
  userId: string;
  storefront: string;
}

export interface StorageStore {
  // Subscriptions
  findSubscription(tx: StoreTransaction, userId: string): Promise<StorageSubscriptionRow | undefined>;
  /** The first subscription of a user; false when one exists already (a concurrent subscribe won). */
  createSubscription(tx: StoreTransaction, row: StorageSubscriptionRow): Promise<boolean>;
  /** Compare-and-set on the version: true when this writer moved it from `version` to `version + 1`. */
  changeSubscriptionAtVersion(tx: StoreTransaction, userId: string, version: number, changes: SubscriptionChanges): Promise<boolean>;
  /** Takes `bytes` of quota when the subscription is active and they fit, in one guarded statement; false otherwise. */
  reserveQuota(tx: StoreTransaction, userId: string, bytes: number): Promise<boolean>;
  /** Gives `bytes` of quota back, never below zero. */
  releaseQuota(tx: StoreTransaction, userId: string, bytes: number): Promise<void>;
  /** Active subscriptions whose paid period ended by `now`, oldest first. */
  listDueRenewals(tx: StoreTransaction, now: number, limit: number): Promise<StorageSubscriptionRow[]>;
  /** Subscriptions whose grace period ran out by `now`. */
  listExpiredGrace(tx: StoreTransaction, now: number, limit: number): Promise<StorageSubscriptionRow[]>;
  /** The key that chose renewal, while it is live (not revoked, not expired); null otherwise. */
  liveRenewalKey(tx: StoreTransaction, subscription: Pick<StorageSubscriptionRow, 'api_key_id'>, now: number): Promise<string | null>;

  // Quotes and charges
  recordQuote(tx: StoreTransaction, row: StorageQuoteRow): Promise<void>;
  findQuote(tx: StoreTransaction, userId: string, id: string): Promise<StorageQuoteRow | undefined>;
  /** Unused → used, once: false when it was used already. */
  markQuoteUsed(tx: StoreTransaction, id: string, now: number): Promise<boolean>;
  /** The charge's row (its reference is unique: a second one with the same reference fails). */
  recordCharge(tx: StoreTransaction, row: StorageChargeRow): Promise<void>;
  /** The newest charges first. */
  listCharges(tx: StoreTransaction, userId: string, limit: number): Promise<StorageChargeRow[]>;

  // Files
  /** One file per operation: false when the operation's file exists already (a retried copy). */
  recordFileOnce(tx: StoreTransaction, row: StorageFileRow): Promise<boolean>;
  findFile(tx: StoreTransaction, userId: string, id: string): Promise<StorageFileRow | undefined>;
  /** Available files, newest first; `projectId` narrows to one project's assets. */
  listFiles(tx: StoreTransaction, userId: string, limit: number, after?: FileCursor, projectId?: string): Promise<StorageFileRow[]>;
  /** Available → deleted, once (with the project asset it is): the caller that wins frees the quota. */
  markFileDeleted(tx: StoreTransaction, id: string, now: number): Promise<boolean>;
  /** Every available file of a user → deleted (a lapsed subscription); their bytes go by the purge. */
  markUserFilesDeleted(tx: StoreTransaction, userId: string, now: number): Promise<number>;
  /** Deleted files whose bytes are still stored, the longest deleted first. */
  listUnpurgedFiles(tx: StoreTransaction, limit: number): Promise<StorageFileRow[]>;
  markFilePurged(tx: StoreTransaction, id: string, now: number): Promise<void>;

  // Copy operations
  recordOperation(tx: StoreTransaction, row: StorageOperationRow): Promise<void>;
  findOperation(tx: StoreTransaction, id: string): Promise<StorageOperationRow | undefined>;
  /** pending → completed or failed, once (compare-and-set on `pending`). */
  finishOperation(tx: StoreTransaction, id: string, outcome: OperationOutcome, now: number): Promise<boolean>;

  // What a copy may come from, and what an import adds
  findGenerationFile(tx: StoreTransaction, userId: string, taskId: string, position: number): Promise<GenerationFileSource | undefined>;
  findArtifact(tx: StoreTransaction, owner: StorefrontOwner, id: string): Promise<AgentArtifactsRow | undefined>;
  findUpload(tx: StoreTransaction, owner: StorefrontOwner, scope: string, id: string): Promise<AgentAttachmentsRow | undefined>;
  findProject(tx: StoreTransaction, owner: StorefrontOwner, id: string): Promise<AgentProjectsRow | undefined>;
  recordProjectAsset(tx: StoreTransaction, row: AgentProjectAssetsRow): Promise<void>;
  /** The paying user (its balance and holds, for a quote). */
  findUser(tx: StoreTransaction, userId: string): Promise<UsersRow | undefined>;

  // Idempotency of the storage endpoints
  /** The stored response of (scope, key) for the same request; a conflict error for another request. */
  findIdempotentResponse<T>(tx: StoreTransaction, scope: string, key: string, hash: string): Promise<T | undefined>;
  /** Reserves (scope, key) in the transaction; returns the earlier response when another writer had it. */
  reserveIdempotencyKey<T>(tx: StoreTransaction, scope: string, key: string, hash: string, now: number): Promise<T | undefined>;
  storeIdempotentResponse(tx: StoreTransaction, scope: string, key: string, response: unknown): Promise<void>;
}
