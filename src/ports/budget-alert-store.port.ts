/**
 * Budget alerts in the store (issue 33, item 7): each account's settings with the month's spend
 * counted behind a ledger cursor, and one row per crossing, unique per (account, alert, period), so
 * that whatever runs twice an alert is sent once.
 */
import type { BudgetAlertEmailStatus, BudgetAlertFiringsRow, BudgetAlertSettingsRow } from './store-rows/budget-alerts.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

/** A ledger entry as the spend count reads it. */
export interface SpendEntry {
  id: string;
  kind: string;
  amount_micro: number;
  created_at: number;
}

/** Where the spend count stands: the month, what it has counted, and the last entry counted. */
export interface SpendCursor {
  spend_month: string;
  spent_micro: number;
  cursor_at: number;
  cursor_id: string;
}

/** A capped member of an organization and what they spent of it in a month. */
export interface CappedMemberSpend {
  user_id: string;
  monthly_cap_micro: number;
  spent_micro: number;
}

export interface BudgetAlertStore {
  findSettings(tx: StoreTransaction, accountId: string): Promise<BudgetAlertSettingsRow | undefined>;
  /**
   * Writes the owner's choices. A new row starts its spend count at `start` (the month's beginning);
   * an existing one keeps its count and cursor, and is checked at `next_check_at`.
   */
  putSettings(tx: StoreTransaction, row: BudgetAlertSettingsRow): Promise<void>;
  deleteSettings(tx: StoreTransaction, accountId: string): Promise<boolean>;
  /** Settings due for a check at `now`, soonest first, at most `limit`. */
  dueSettings(tx: StoreTransaction, now: number, limit: number): Promise<BudgetAlertSettingsRow[]>;
  /** The account's ledger entries after the cursor (created_at, id) and before `before`, in that order, at most `limit`. */
  entriesAfter(tx: StoreTransaction, accountId: string, cursorAt: number, cursorId: string, before: number, limit: number): Promise<SpendEntry[]>;
  /** Moves the spend count from `from` to `to` and sets the next check; false when another check moved it first. */
  advanceSpend(tx: StoreTransaction, accountId: string, from: SpendCursor, to: SpendCursor, nextCheckAt: number): Promise<boolean>;
  /** The balance of the account (micro-USD); undefined when it does not exist. */
  balanceOf(tx: StoreTransaction, accountId: string): Promise<number | undefined>;
  /** An organization's members with a monthly cap, with their spend in `month`. */
  cappedMemberSpend(tx: StoreTransaction, organizationId: string, month: string): Promise<CappedMemberSpend[]>;
  /** Records a crossing; false when this (account, alert, period) fired already (nothing changes then). */
  insertFiring(tx: StoreTransaction, row: BudgetAlertFiringsRow): Promise<boolean>;
  /** The account's latest crossings, newest first. */
  listFirings(tx: StoreTransaction, accountId: string, limit: number): Promise<BudgetAlertFiringsRow[]>;
  /** Crossings whose email is still to send, oldest first. */
  pendingEmails(tx: StoreTransaction, limit: number): Promise<BudgetAlertFiringsRow[]>;
  /** Names the webhook delivery made for a crossing (in the transaction that recorded it). */
  setWebhookDelivery(tx: StoreTransaction, firingId: string, deliveryId: string): Promise<void>;
  /** Takes one sending attempt of a pending email: false when another check took it (attempts moved) or it is no longer pending. */
  claimEmail(tx: StoreTransaction, firingId: string, attemptsBefore: number): Promise<boolean>;
  /** Ends a pending email: sent, or failed for good. */
  finishEmail(tx: StoreTransaction, firingId: string, status: Exclude<BudgetAlertEmailStatus, 'pending'>): Promise<boolean>;
}
