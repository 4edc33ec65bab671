-- Budget alerts (issue 33, item 7): an account's owner sets thresholds (percentages of a monthly
-- budget, a balance below an amount, and in an organization percentages of each member's monthly
-- cap); a periodic check in the workers records each crossing once per (account, alert, month) and
-- sends one email and one signed webhook for it. The month's spend is counted incrementally from
-- the ledger behind a cursor (spend_month, spent_micro, cursor_at, cursor_id), so a round's work is
-- bounded however much the account spends.
CREATE TABLE budget_alert_settings (
  account_id TEXT PRIMARY KEY REFERENCES users (id),
  monthly_budget_micro INTEGER CHECK (monthly_budget_micro IS NULL OR monthly_budget_micro > 0),
  spend_percents_json TEXT NOT NULL DEFAULT '[]',
  balance_below_micro INTEGER CHECK (balance_below_micro IS NULL OR balance_below_micro > 0),
  member_cap_percents_json TEXT NOT NULL DEFAULT '[]',
  webhook_url TEXT,
  email_enabled INTEGER NOT NULL DEFAULT 1,
  updated_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  spend_month TEXT NOT NULL,
  spent_micro INTEGER NOT NULL DEFAULT 0,
  cursor_at INTEGER NOT NULL,
  cursor_id TEXT NOT NULL DEFAULT '',
  next_check_at INTEGER NOT NULL
) STRICT;
CREATE INDEX budget_alert_settings_due_idx ON budget_alert_settings (next_check_at);

-- One row per crossing: the unique key makes "once per period" hold whatever retries or runs twice.
CREATE TABLE budget_alert_firings (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES users (id),
  alert_key TEXT NOT NULL,
  period TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('spend', 'balance_below', 'member_cap')),
  member_id TEXT,
  threshold_percent INTEGER,
  threshold_micro INTEGER NOT NULL,
  observed_micro INTEGER NOT NULL,
  notified INTEGER NOT NULL,
  email_status TEXT NOT NULL CHECK (email_status IN ('pending', 'sent', 'failed', 'none')),
  email_attempts INTEGER NOT NULL DEFAULT 0,
  webhook_delivery_id TEXT,
  fired_at INTEGER NOT NULL,
  UNIQUE (account_id, alert_key, period)
) STRICT;
CREATE INDEX budget_alert_firings_account_idx ON budget_alert_firings (account_id, fired_at);
CREATE INDEX budget_alert_firings_email_idx ON budget_alert_firings (email_status, fired_at) WHERE email_status = 'pending';
