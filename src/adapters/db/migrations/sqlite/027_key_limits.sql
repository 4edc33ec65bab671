-- Per-key limits (issue 21, item 15): a spend cap (total or per calendar month), an expiry, an
-- allow-list of models, requests per minute and concurrent generations, all optional (null: none).
ALTER TABLE api_keys ADD COLUMN spend_cap_micro INTEGER;
ALTER TABLE api_keys ADD COLUMN spend_cap_period TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN allowed_models TEXT;
ALTER TABLE api_keys ADD COLUMN rpm_limit INTEGER;
ALTER TABLE api_keys ADD COLUMN concurrency_limit INTEGER;

-- What a key spent and holds, per period: 'total' and each calendar month 'YYYY-MM' (UTC). Every
-- charge on a key moves both rows in the transaction of its debit or hold; the row of the key's cap
-- period is guarded (spent + held + amount <= cap).
CREATE TABLE api_key_spend (
  key_id TEXT NOT NULL,
  period TEXT NOT NULL,
  spent_micro INTEGER NOT NULL DEFAULT 0,
  held_micro INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, period)
);
