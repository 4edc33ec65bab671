import type { AccountBooks, BillingStore } from '../../../ports/billing-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { agentOriginsOf, checkoutIdsOf, listOpenRuns, listUserEntries, listUserHolds } from '../ledger/account-ledger.repository.ts';
import { readSnapshot } from '../read-snapshot.ts';
import { chatRequestModelsOf } from '../repositories/chat-request-models.repository.ts';
import {
  attachSession,
  completeCheckout,
  findCheckout,
  findCheckoutByKey,
  findCheckoutBySession,
  holdCheckoutForReview,
  insertCheckoutOnce,
  listCheckouts,
} from '../repositories/payments.repository.ts';
import { disableRedeemCode, findRedeemCodeByHash, insertRedeemCode, listRedeemCodes, takeRedemption } from '../repositories/redeem-codes.repository.ts';
import { findUserById } from '../repositories/users.repository.ts';
import { type Executor, executorOf } from '../schema.ts';

/** The reads of the account page, on whatever snapshot `db` is. */
async function readBooks(db: Executor, userId: string): Promise<AccountBooks | undefined> {
  const user = await findUserById(db, userId);
  if (!user) return undefined;
  const holds = await listUserHolds(db, userId);
  const openRuns = await listOpenRuns(db, userId);
  return { user, holds, openRuns, origins: await agentOriginsOf(db, userId, holds.map((h) => h.id)) };
}

/** Checkouts, redeem codes and the ledger page over Kysely, for SQLite and PostgreSQL alike (stateless). */
export const kyselyBillingStore: BillingStore = {
  addCheckoutOnce: (tx, row) => insertCheckoutOnce(executorOf(tx), row),
  findCheckout: (tx, id) => findCheckout(executorOf(tx), id),
  findCheckoutByKey: (tx, userId, idempotencyKey) => findCheckoutByKey(executorOf(tx), userId, idempotencyKey),
  findCheckoutBySession: (tx, sessionId) => findCheckoutBySession(executorOf(tx), sessionId),
  attachCheckoutSession: (tx, id, sessionId, url) => attachSession(executorOf(tx), id, sessionId, url),
  completeCheckout: (tx, id, status, now, from) => completeCheckout(executorOf(tx), id, status, now, from),
  holdCheckoutForReview: (tx, id, paid, now) => holdCheckoutForReview(executorOf(tx), id, paid, now),
  listCheckouts: (tx, userId, limit) => listCheckouts(executorOf(tx), userId, limit),

  addRedeemCode: (tx, row) => insertRedeemCode(executorOf(tx), row),
  findRedeemCodeByHash: (tx, codeHash) => findRedeemCodeByHash(executorOf(tx), codeHash),
  listRedeemCodes: (tx, limit, beforeId) => listRedeemCodes(executorOf(tx), limit, beforeId),
  takeRedemption: (tx, id, now) => takeRedemption(executorOf(tx), id, now),
  disableRedeemCode: (tx, id, now) => disableRedeemCode(executorOf(tx), id, now),

  listUserEntries: (tx, userId, query) => listUserEntries(executorOf(tx), userId, query),
  agentOriginsOf: (tx, userId, refIds) => agentOriginsOf(executorOf(tx), userId, refIds),
  checkoutIdsOf: (tx, userId, sessionIds) => checkoutIdsOf(executorOf(tx), userId, sessionIds),
  chatRequestModelsOf: (tx, userId, requestIds) => chatRequestModelsOf(executorOf(tx), userId, requestIds),
  readAccountBooks(tx: StoreTransaction, userId: string): Promise<AccountBooks | undefined> {
    const db = executorOf(tx);
    // Inside a transaction already: its snapshot is the one. Otherwise one snapshot of its own (read-snapshot.ts).
    return db.isTransaction ? readBooks(db, userId) : readSnapshot(db, (snapshot) => readBooks(snapshot, userId));
  },
};
