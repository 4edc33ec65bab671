/** Rows of the budget alert tables (migration 045), as the store port hands them out. */

/** What an account's owner asked to be told about, and the month's spend counted so far behind a ledger cursor. */
export interface BudgetAlertSettingsRow {
  account_id: string;
  /** The monthly budget the spend percentages are of; null: no spend alerts. */
  monthly_budget_micro: number | null;
  /** JSON array of whole percentages (1-1000), ascending. */
  spend_percents_json: string;
  /** Alert when the balance falls below this; null: none. */
  balance_below_micro: number | null;
  /** An organization's: JSON array of percentages of each capped member's monthly cap. */
  member_cap_percents_json: string;
  /** Where the signed webhook goes; null: email only. */
  webhook_url: string | null;
  email_enabled: number;
  updated_by: string;
  updated_at: number;
  /** The month ('YYYY-MM') spent_micro counts, through the ledger entry (cursor_at, cursor_id). */
  spend_month: string;
  spent_micro: number;
  cursor_at: number;
  cursor_id: string;
  next_check_at: number;
}

export type BudgetAlertKind = 'spend' | 'balance_below' | 'member_cap';
export type BudgetAlertEmailStatus = 'pending' | 'sent' | 'failed' | 'none';

/** One crossing of one alert in one period: unique per (account_id, alert_key, period). */
export interface BudgetAlertFiringsRow {
  id: string;
  account_id: string;
  alert_key: string;
  period: string;
  kind: BudgetAlertKind;
  member_id: string | null;
  threshold_percent: number | null;
  threshold_micro: number;
  observed_micro: number;
  /** 0 when a higher threshold crossed in the same check was the one sent (no mail or webhook of its own). */
  notified: number;
  email_status: BudgetAlertEmailStatus;
  email_attempts: number;
  webhook_delivery_id: string | null;
  fired_at: number;
}
