/**
 * The storage calendar, run by a recurring maintenance job (safe to run twice, and in several
 * processes at once): renewals at the end of each paid period (charged once: a compare-and-set on the
 * subscription's version in the same transaction as the ledger entry, whose reference names the
 * period), the 72-hour grace period when a period ends unpaid, deletion when grace runs out, and the
 * purge of deleted files' bytes.
 */
import type { Logger } from 'pino';
import { isAppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { periodEnd, STORAGE_GRACE_MS, type StoragePlanCatalog } from '../../domain/storage/storage-plans.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { JobOutcome } from '../../ports/work-queue.port.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { StorageStore, StorageSubscriptionRow } from '../../ports/storage-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export const STORAGE_BILLING_INTERVAL_MS = 60_000;
/** A subscription that missed more renewals than this (a gateway down for two years) stops catching up. */
const MAX_CATCH_UP = 24;

export interface StorageBillingSummary {
  renewed: number;
  toGrace: number;
  lapsed: number;
  purged: number;
}

export class StorageBilling {
  readonly #store: StorageStore;
  readonly #uow: UnitOfWork;
  readonly #ledger: LedgerBook;
  readonly #blobs: BlobStore;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #catalog: StoragePlanCatalog;

  constructor(deps: { store: StorageStore; uow: UnitOfWork; ledger: LedgerBook; blobs: BlobStore; now: () => number; logger: Logger; plans: StoragePlanCatalog }) {
    this.#catalog = deps.plans;
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#ledger = deps.ledger;
    this.#blobs = deps.blobs;
    this.#now = deps.now;
    this.#logger = deps.logger;
  }

  /** Everything that is due now. */
  async run(): Promise<StorageBillingSummary> {
    const summary: StorageBillingSummary = { renewed: 0, toGrace: 0, lapsed: 0, purged: 0 };
    const now = this.#now();
    for (const row of await this.#store.listDueRenewals(this.#uow.direct, now, 200)) await this.#renew(row, now, summary);
    for (const row of await this.#store.listExpiredGrace(this.#uow.direct, now, 200)) {
      const lapsed = await this.#uow.transaction(async (tx) => {
        if (!(await this.#store.changeSubscriptionAtVersion(tx, row.user_id, row.version, { status: 'lapsed', used_bytes: 0, grace_ends_at: null, next_plan_id: null, updated_at: now }))) return false;
        await this.#store.markUserFilesDeleted(tx, row.user_id, now);
        return true;
      });
      if (lapsed) {
        summary.lapsed++;
        this.#logger.info({ userId: row.user_id }, 'storage grace period ended: files deleted');
      }
    }
    summary.purged = await this.purge();
    return summary;
  }

  /** Removes the bytes of deleted files (deleting twice is harmless). */
  async purge(): Promise<number> {
    let purged = 0;
    for (const file of await this.#store.listUnpurgedFiles(this.#uow.direct, 500)) {
      await this.#blobs.delete(file.blob_key);
      await this.#store.markFilePurged(this.#uow.direct, file.id, this.#now());
      purged++;
    }
    return purged;
  }

  async #renew(first: StorageSubscriptionRow, now: number, summary: StorageBillingSummary): Promise<void> {
    let row: StorageSubscriptionRow | undefined = first;
    for (let i = 0; i < MAX_CATCH_UP && row && row.status === 'active' && row.period_end <= now; i++) {
      const current: StorageSubscriptionRow = row;
      if (current.auto_renew !== 1) {
        if (await this.#startGrace(current, now)) summary.toGrace++;
        return;
      }
      const plan = this.#catalog.find(current.next_plan_id ?? current.plan_id);
      if (!plan) {
        // The operator removed the plan from storagePlans: nothing can be priced. The customer's files
        // must not start towards deletion for that; the subscription waits, uncharged, for the config.
        this.#logger.error({ userId: current.user_id, planId: current.next_plan_id ?? current.plan_id }, 'storage renewal: the plan is not in storagePlans; not renewed');
        return;
      }
      const index = current.period_index + 1;
      try {
        const renewed = await this.#uow.transaction(async (tx) => {
          const next = { start: current.period_end, end: periodEnd(current.anchor_at, index) };
          const moved = await this.#store.changeSubscriptionAtVersion(tx, current.user_id, current.version, {
            plan_id: plan.id,
            next_plan_id: null,
            quota_bytes: plan.quotaBytes,
            period_index: index,
            period_start: next.start,
            period_end: next.end,
            updated_at: now,
          });
          if (!moved) return false;
          const reference = `storage:renewal:${current.user_id}:${index}`;
          // Through the key that chose renewal (its spend cap checked in this transaction), while it lives.
          const apiKeyId = await this.#store.liveRenewalKey(tx, current, now);
          await this.#ledger.post(tx, { userId: current.user_id, kind: 'storage_charge', reference, amountMicro: -plan.monthlyPriceMicro, note: `${plan.name} storage: renewal`, apiKeyId }, now);
          await this.#store.recordCharge(tx, {
            id: newId('stc', now),
            user_id: current.user_id,
            plan_id: plan.id,
            charge_kind: 'renewal',
            amount_micro: plan.monthlyPriceMicro,
            period_start: next.start,
            period_end: next.end,
            reference,
            created_at: now,
            api_key_id: apiKeyId,
          });
          return true;
        });
        if (!renewed) return;
        summary.renewed++;
      } catch (error) {
        // A renewal the balance or the key's spend cap does not cover is unpaid: grace, as for renewal off.
        if (!isAppError(error) || (error.code !== 'insufficient_balance' && error.code !== 'key_spend_cap_reached')) throw error;
        this.#logger.info({ userId: current.user_id, reason: error.code }, 'storage renewal not covered; grace period started');
        if (await this.#startGrace(current, now)) summary.toGrace++;
        return;
      }
      row = await this.#store.findSubscription(this.#uow.direct, current.user_id);
    }
  }

  #startGrace(row: StorageSubscriptionRow, now: number): Promise<boolean> {
    return this.#store.changeSubscriptionAtVersion(this.#uow.direct, row.user_id, row.version, { status: 'grace', grace_ends_at: row.period_end + STORAGE_GRACE_MS, updated_at: now });
  }
}

export function createStorageBillingHandler(deps: { billing: StorageBilling; logger: Logger }): () => Promise<JobOutcome> {
  return async () => {
    try {
      const summary = await deps.billing.run();
      if (summary.renewed + summary.toGrace + summary.lapsed + summary.purged > 0) deps.logger.info(summary, 'storage billing');
    } catch (error) {
      deps.logger.warn({ err: error }, 'storage billing failed; trying again in a minute');
    }
    return { kind: 'again', runAt: Date.now() + STORAGE_BILLING_INTERVAL_MS };
  };
}
