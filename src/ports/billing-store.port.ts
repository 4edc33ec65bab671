/**
 * Money coming in and the user's own view of the books, as the billing services see them: payment
 * checkouts (each status change a compare-and-set), redeem codes (the redemption count guarded, never
 * past the maximum) and the ledger page with what each entry is about. The money itself moves through
 * the LedgerBook port in the same transaction. Every method takes the transaction first;
 * test/contract/account-store.contract.test.ts runs it on both engines.
 */
import type { CheckoutStatus } from '../domain/payments/checkout-status.ts';
import type { UsersRow } from './store-rows/foundation.rows.ts';
import type { LedgerEntriesRow } from './store-rows/foundation.rows.ts';
import type { PaymentCheckoutsRow, RedeemCodesRow } from './store-rows/payments.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type CheckoutRow = PaymentCheckoutsRow;
export type RedeemCodeRow = RedeemCodesRow;

/** A running chat request's hold, as the account page shows it. */
export interface HoldRow {
  id: string;
  model: string;
  hold_micro: number;
  created_at: number;
}

/** An agent run that has not ended, with its budget book. */
export interface OpenRunRow {
  id: string;
  conversation_id: string;
  status: string;
  limit_micro: number;
  settled_micro: number;
  committed_micro: number;
  created_at: number;
}

/** The account as one snapshot: the balance, what is held and the holds behind it always agree. */
export interface AccountBooks {
  user: UsersRow;
  holds: HoldRow[];
  openRuns: OpenRunRow[];
  /** The agent conversation behind each hold an agent run made. */
  origins: Map<string, { runId: string; conversationId: string }>;
}

export interface LedgerPageQuery {
  limit: number;
  /** The last id of the previous page. */
  before?: string | undefined;
  kinds?: readonly string[] | undefined;
  /** An organization's entries that name this member (migration 042). */
  memberId?: string | undefined;
}

export interface BillingStore {
  /** Inserts the checkout unless (user, idempotency key) has one: false then, nothing written. */
  addCheckoutOnce(tx: StoreTransaction, row: CheckoutRow): Promise<boolean>;
  findCheckout(tx: StoreTransaction, id: string): Promise<CheckoutRow | undefined>;
  findCheckoutByKey(tx: StoreTransaction, userId: string, idempotencyKey: string): Promise<CheckoutRow | undefined>;
  findCheckoutBySession(tx: StoreTransaction, sessionId: string): Promise<CheckoutRow | undefined>;
  /** Records the provider's session and page, once (a checkout that has one keeps it). */
  attachCheckoutSession(tx: StoreTransaction, id: string, sessionId: string, url: string): Promise<void>;
  /** Compare-and-set from one of `from` (default `created`): true for the one writer that moved it. */
  completeCheckout(tx: StoreTransaction, id: string, status: Exclude<CheckoutStatus, 'created'>, now: number, from?: readonly CheckoutStatus[]): Promise<boolean>;
  /** Holds a checkout paid with another amount or currency for review (compare-and-set, like a credit). */
  holdCheckoutForReview(tx: StoreTransaction, id: string, paid: { amountMinor: number; currency: string }, now: number): Promise<boolean>;
  listCheckouts(tx: StoreTransaction, userId: string, limit: number): Promise<CheckoutRow[]>;

  /** Inserts a code unless its text (hash) exists: false then. */
  addRedeemCode(tx: StoreTransaction, row: RedeemCodeRow): Promise<boolean>;
  findRedeemCodeByHash(tx: StoreTransaction, codeHash: string): Promise<RedeemCodeRow | undefined>;
  listRedeemCodes(tx: StoreTransaction, limit: number, beforeId?: string): Promise<RedeemCodeRow[]>;
  /** Counts one redemption of a live code, never past its maximum: false when none is left (or expired, withdrawn). */
  takeRedemption(tx: StoreTransaction, id: string, now: number): Promise<boolean>;
  /** Withdraws a code; undefined when there is none. */
  disableRedeemCode(tx: StoreTransaction, id: string, now: number): Promise<RedeemCodeRow | undefined>;

  /** A user's ledger page, newest first. */
  listUserEntries(tx: StoreTransaction, userId: string, query: LedgerPageQuery): Promise<LedgerEntriesRow[]>;
  /** The agent conversation (and run) behind each chat request or task id that an agent operation made. */
  agentOriginsOf(tx: StoreTransaction, userId: string, refIds: readonly string[]): Promise<Map<string, { runId: string; conversationId: string }>>;
  /** Our checkout ids of these provider sessions. */
  checkoutIdsOf(tx: StoreTransaction, userId: string, sessionIds: readonly string[]): Promise<Map<string, string>>;
  /** The model each of these chat requests asked for. */
  chatRequestModelsOf(tx: StoreTransaction, userId: string, requestIds: readonly string[]): Promise<Map<string, string>>;
  /** The user's balance, holds and open runs read on one snapshot; undefined when there is no such user. */
  readAccountBooks(tx: StoreTransaction, userId: string): Promise<AccountBooks | undefined>;
}
