-- Budget alerts (issue 33, item 7): an account's owner sets thresholds (percentages of a monthly
-- budget, a balance below an amount, and in an organization percentages of each member's monthly
-- cap); a periodic check in the workers records each crossing once per (account, alert, month) and
-- sends one email and one signed webhook for it. The month's spend is counted incrementally from
-- the ledger behind a cursor (spend_month, spent_micro, cursor_at, cursor_id), so a round's work is
-- bounded however much the account spends.
CREATE TABLE budget_alert_settings (
  account_id text PRIMARY KEY REFERENCES users (id),
  monthly_budget_micro bigint CHECK (monthly_budget_micro IS NULL OR monthly_budget_micro > 0),
  spend_percents_json text NOT NULL DEFAULT '[]',
  balance_below_micro bigint CHECK (balance_below_micro IS NULL OR balance_below_micro > 0),
  member_cap_percents_json text NOT NULL DEFAULT '[]',
  webhook_url text,
  email_enabled integer NOT NULL DEFAULT 1,
  updated_by text NOT NULL,
  updated_at bigint NOT NULL,
  spend_month text NOT NULL,
  spent_micro bigint NOT NULL DEFAULT 0,
  cursor_at bigint NOT NULL,
  cursor_id text NOT NULL DEFAULT '',
  next_check_at bigint NOT NULL
);
CREATE INDEX budget_alert_settings_due_idx ON budget_alert_settings (next_check_at);

-- One row per crossing: the unique key makes "once per period" hold whatever retries or runs twice.
CREATE TABLE budget_alert_firings (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES users (id),
  alert_key text NOT NULL,
  period text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('spend', 'balance_below', 'member_cap')),
  member_id text,
  threshold_percent integer,
  threshold_micro bigint NOT NULL,
  observed_micro bigint NOT NULL,
  notified integer NOT NULL,
  email_status text NOT NULL CHECK (email_status IN ('pending', 'sent', 'failed', 'none')),
  email_attempts integer NOT NULL DEFAULT 0,
  webhook_delivery_id text,
  fired_at bigint NOT NULL,
  UNIQUE (account_id, alert_key, period)
);
CREATE INDEX budget_alert_firings_account_idx ON budget_alert_firings (account_id, fired_at);
CREATE INDEX budget_alert_firings_email_idx ON budget_alert_firings (email_status, fired_at) WHERE email_status = 'pending';
