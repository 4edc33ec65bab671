import type { AgentArtifactsRow, AgentAttachmentsRow } from '../../../ports/store-rows/agent.rows.ts';
import type { AgentProjectAssetsRow, AgentProjectsRow } from '../../../ports/store-rows/agent-projects.rows.ts';
import type { UsersRow } from '../../../ports/store-rows/foundation.rows.ts';
import type {
  FileCursor,
  GenerationFileSource,
  OperationOutcome,
  StorageChargeRow,
  StorageFileRow,
  StorageOperationRow,
  StorageQuoteRow,
  StorageStore,
  StorageSubscriptionRow,
  StorefrontOwner,
  SubscriptionChanges,
} from '../../../ports/storage-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { findOwnedArtifact } from '../repositories/agent/artifacts.repository.ts';
import { findOwnedScopedAttachment } from '../repositories/agent/attachments.repository.ts';
import { findIdempotentResponse, reserveIdempotencyKey, storeIdempotentResponse } from '../repositories/agent/idempotency.repository.ts';
import { insertProjectAsset } from '../repositories/agent/project-assets.repository.ts';
import { findProject } from '../repositories/agent/projects.repository.ts';
import * as storage from '../repositories/storage.repository.ts';
import { findUserById } from '../repositories/users.repository.ts';
import { executorOf } from '../schema.ts';

/** Paid storage's store over Kysely, for SQLite and PostgreSQL alike: the repositories, behind the port. */
export class KyselyStorageStore implements StorageStore {
  findSubscription(tx: StoreTransaction, userId: string): Promise<StorageSubscriptionRow | undefined> {
    return storage.findSubscription(executorOf(tx), userId);
  }

  createSubscription(tx: StoreTransaction, row: StorageSubscriptionRow): Promise<boolean> {
    return storage.insertSubscription(executorOf(tx), row);
  }

  changeSubscriptionAtVersion(tx: StoreTransaction, userId: string, version: number, changes: SubscriptionChanges): Promise<boolean> {
    return storage.updateSubscriptionAtVersion(executorOf(tx), userId, version, changes);
  }

  reserveQuota(tx: StoreTransaction, userId: string, bytes: number): Promise<boolean> {
    return storage.reserveQuota(executorOf(tx), userId, bytes);
  }

  releaseQuota(tx: StoreTransaction, userId: string, bytes: number): Promise<void> {
    return storage.releaseQuota(executorOf(tx), userId, bytes);
  }

  listDueRenewals(tx: StoreTransaction, now: number, limit: number): Promise<StorageSubscriptionRow[]> {
    return storage.listDueRenewals(executorOf(tx), now, limit);
  }

  listExpiredGrace(tx: StoreTransaction, now: number, limit: number): Promise<StorageSubscriptionRow[]> {
    return storage.listExpiredGrace(executorOf(tx), now, limit);
  }

  liveRenewalKey(tx: StoreTransaction, subscription: Pick<StorageSubscriptionRow, 'api_key_id'>, now: number): Promise<string | null> {
    return storage.liveRenewalKey(executorOf(tx), subscription, now);
  }

  recordQuote(tx: StoreTransaction, row: StorageQuoteRow): Promise<void> {
    return storage.insertQuote(executorOf(tx), row);
  }

  findQuote(tx: StoreTransaction, userId: string, id: string): Promise<StorageQuoteRow | undefined> {
    return storage.findQuote(executorOf(tx), userId, id);
  }

  markQuoteUsed(tx: StoreTransaction, id: string, now: number): Promise<boolean> {
    return storage.markQuoteUsed(executorOf(tx), id, now);
  }

  recordCharge(tx: StoreTransaction, row: StorageChargeRow): Promise<void> {
    return storage.insertCharge(executorOf(tx), row);
  }

  listCharges(tx: StoreTransaction, userId: string, limit: number): Promise<StorageChargeRow[]> {
    return storage.listCharges(executorOf(tx), userId, limit);
  }

  recordFileOnce(tx: StoreTransaction, row: StorageFileRow): Promise<boolean> {
    return storage.insertFileOnce(executorOf(tx), row);
  }

  findFile(tx: StoreTransaction, userId: string, id: string): Promise<StorageFileRow | undefined> {
    return storage.findFile(executorOf(tx), userId, id);
  }

  listFiles(tx: StoreTransaction, userId: string, limit: number, after?: FileCursor, projectId?: string): Promise<StorageFileRow[]> {
    return storage.listFiles(executorOf(tx), userId, limit, after, projectId);
  }

  markFileDeleted(tx: StoreTransaction, id: string, now: number): Promise<boolean> {
    return storage.markFileDeleted(executorOf(tx), id, now);
  }

  markUserFilesDeleted(tx: StoreTransaction, userId: string, now: number): Promise<number> {
    return storage.markUserFilesDeleted(executorOf(tx), userId, now);
  }

  listUnpurgedFiles(tx: StoreTransaction, limit: number): Promise<StorageFileRow[]> {
    return storage.listUnpurgedFiles(executorOf(tx), limit);
  }

  markFilePurged(tx: StoreTransaction, id: string, now: number): Promise<void> {
    return storage.markFilePurged(executorOf(tx), id, now);
  }

  recordOperation(tx: StoreTransaction, row: StorageOperationRow): Promise<void> {
    return storage.insertOperation(executorOf(tx), row);
  }

  findOperation(tx: StoreTransaction, id: string): Promise<StorageOperationRow | undefined> {
    return storage.findOperation(executorOf(tx), id);
  }

  finishOperation(tx: StoreTransaction, id: string, outcome: OperationOutcome, now: number): Promise<boolean> {
    return storage.finishOperation(executorOf(tx), id, outcome, now);
  }

  findGenerationFile(tx: StoreTransaction, userId: string, taskId: string, position: number): Promise<GenerationFileSource | undefined> {
    return storage.findOwnedGenerationFile(executorOf(tx), userId, taskId, position);
  }

  findArtifact(tx: StoreTransaction, owner: StorefrontOwner, id: string): Promise<AgentArtifactsRow | undefined> {
    return findOwnedArtifact(executorOf(tx), owner, id);
  }

  findUpload(tx: StoreTransaction, owner: StorefrontOwner, scope: string, id: string): Promise<AgentAttachmentsRow | undefined> {
    return findOwnedScopedAttachment(executorOf(tx), owner, scope, id);
  }

  findProject(tx: StoreTransaction, owner: StorefrontOwner, id: string): Promise<AgentProjectsRow | undefined> {
    return findProject(executorOf(tx), owner, id);
  }

  recordProjectAsset(tx: StoreTransaction, row: AgentProjectAssetsRow): Promise<void> {
    return insertProjectAsset(executorOf(tx), row);
  }

  findUser(tx: StoreTransaction, userId: string): Promise<UsersRow | undefined> {
    return findUserById(executorOf(tx), userId);
  }

  findIdempotentResponse<T>(tx: StoreTransaction, scope: string, key: string, hash: string): Promise<T | undefined> {
    return findIdempotentResponse<T>(executorOf(tx), scope, key, hash);
  }

  reserveIdempotencyKey<T>(tx: StoreTransaction, scope: string, key: string, hash: string, now: number): Promise<T | undefined> {
    return reserveIdempotencyKey<T>(executorOf(tx), scope, key, hash, now);
  }

  storeIdempotentResponse(tx: StoreTransaction, scope: string, key: string, response: unknown): Promise<void> {
    return storeIdempotentResponse(executorOf(tx), scope, key, response);
  }
}
