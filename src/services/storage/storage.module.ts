/** Builds paid storage's services for the composition root; they share the agent's clock. */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Schema } from '../../adapters/db/schema.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { StoragePlan } from '../../domain/storage/storage-plans.ts';
import { StoragePlanCatalog } from '../../domain/storage/storage-plans.ts';
import type { WorkQueue } from '../../ports/work-queue.port.ts';
import type { FaultPoints } from '../../ports/fault-points.port.ts';
import { ProjectAssetImport } from './project-asset-import.ts';
import { StorageBilling } from './storage-billing.ts';
import { StorageFilesService } from './storage-files.service.ts';
import { StorageSubscriptionsService } from './storage-subscriptions.service.ts';

export interface StorageServices {
  subscriptions: StorageSubscriptionsService;
  files: StorageFilesService;
  billing: StorageBilling;
  plans: StoragePlanCatalog;
  /** Copies of artifacts into a project's assets. */
  assets: ProjectAssetImport;
}

export function buildStorageServices(deps: { db: Kysely<Schema>; blobs: BlobStore; queue: WorkQueue; now: () => number; logger: Logger; plans?: readonly StoragePlan[]; faults?: FaultPoints }): StorageServices {
  const plans = new StoragePlanCatalog(deps.plans);
  const files = new StorageFilesService(deps);
  return {
    subscriptions: new StorageSubscriptionsService({ db: deps.db, now: deps.now, plans }),
    files,
    assets: new ProjectAssetImport({ db: deps.db, files }),
    billing: new StorageBilling({ ...deps, plans }),
    plans,
  };
}
