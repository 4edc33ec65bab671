/**
 * Settles chat requests whose process died between the hold and the settlement, so that a crash
 * never keeps a user's money, and the holds whose live settlement failed (their process left the
 * estimate on the row, ChatStore.deferSettlement, and set it stale at once): those
 * are charged that estimate, never above the hold, and keep the status the process meant. A running request's hold row is marked alive every minute by the
 * process serving it (`last_seen_at`); a row not heard from for `staleAfterMs` (5 minutes) belongs to
 * no live process. Such a request's hold is released in full and it is recorded as `abandoned`: we
 * cannot know what the upstream produced, and the hold is an upper bound far above a typical cost, so
 * charging it would overcharge; the upstream's bill for that one request is ours to absorb.
 *
 * Idempotent: deleting the hold row is the compare-and-set, in the same transaction as the release, so
 * a live settlement racing the job, or two jobs, release the hold once. Requests held before
 * migration 009 (an `in_progress` chat_requests row and a `chat_hold` entry) are released the way they
 * were held: their row leaves `in_progress` by compare-and-set and a `chat_release` unique per request
 * gives the hold back.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { ChatStore } from '../../ports/chat-store.port.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobOutcome } from '../../ports/work-queue.port.ts';

const BATCH = 200;

export interface ChatSettleDeps {
  /** The requests' records: what is stale, and the old requests' compare-and-set. */
  store: ChatStore;
  uow: UnitOfWork;
  /** Releases (or settles) the holds found, in the transaction of their compare-and-set. */
  book: LedgerBook;
  logger: Logger;
  metrics?: Metrics;
  /** How long a running request may go unmarked before it counts as abandoned; 5 minutes. */
  staleAfterMs?: number;
  /** How often the job runs; every minute. */
  intervalMs?: number;
  now?: () => number;
}

/** Releases the holds of abandoned requests; returns how many it settled. */
export async function settleAbandonedChatRequests(deps: ChatSettleDeps): Promise<number> {
  const now = (deps.now ?? Date.now)();
  const staleAfterMs = deps.staleAfterMs ?? 5 * 60_000;
  let settled = 0;
  for (;;) {
    const stale = await deps.store.findStaleHolds(deps.uow.direct, now - staleAfterMs, BATCH);
    for (const hold of stale) {
      // A hold its live settlement left here carries the estimate to charge; any other was abandoned.
      const deferred = hold.settle_micro !== null && hold.settle_micro !== undefined;
      if (await deps.uow.transaction((tx) => (deferred ? deps.book.settleDeferredHold(tx, hold, now) : deps.book.releaseAbandonedHold(tx, hold, now)))) {
        settled++;
        if (deferred && Number(hold.settle_micro) > 0) deps.metrics?.ledgerEntries.inc({ kind: 'chat_charge' });
      }
    }
    if (stale.length < BATCH) break;
  }
  for (;;) {
    const stale = await deps.store.findStaleRequests(deps.uow.direct, now - staleAfterMs, BATCH);
    for (const row of stale) {
      const released = await deps.uow.transaction(async (tx) => {
        if (!(await deps.store.abandonRequest(tx, row.id, now, row.created_at))) return false;
        await deps.book.post(tx, { userId: row.user_id, kind: 'chat_release', reference: row.id, amountMicro: row.hold_micro, note: `${row.model} (abandoned)` }, now);
        return true;
      });
      if (released) {
        settled++;
        deps.metrics?.ledgerEntries.inc({ kind: 'chat_release' });
      }
    }
    if (stale.length < BATCH) break;
  }
  if (settled > 0) deps.logger.warn({ settled }, 'released the holds of abandoned chat requests');
  return settled;
}

export function createChatSettleHandler(deps: ChatSettleDeps): () => Promise<JobOutcome> {
  const now = deps.now ?? Date.now;
  return async () => {
    await settleAbandonedChatRequests(deps);
    return { kind: 'again', runAt: now() + (deps.intervalMs ?? 60_000) };
  };
}
