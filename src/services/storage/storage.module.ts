/** Builds paid storage's services for the composition root; they share the agent's clock. */
import type { Logger } from 'pino';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { StorageStore } from '../../ports/storage-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
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

/** The ports paid storage works through: its store, the unit of work, and the ledger book for its charges. */
export interface StoragePorts {
  store: StorageStore;
  uow: UnitOfWork;
  ledger: LedgerBook;
}

export function buildStorageServices(
  deps: StoragePorts & { blobs: BlobStore; queue: WorkQueue; now: () => number; logger: Logger; plans?: readonly StoragePlan[]; faults?: FaultPoints },
): StorageServices {
  const plans = new StoragePlanCatalog(deps.plans);
  const files = new StorageFilesService(deps);
  return {
    subscriptions: new StorageSubscriptionsService({ store: deps.store, uow: deps.uow, ledger: deps.ledger, now: deps.now, plans }),
    files,
    assets: new ProjectAssetImport({ store: deps.store, uow: deps.uow, files }),
    billing: new StorageBilling({ ...deps, plans }),
    plans,
  };
}
