CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT UNIQUE,
  password_hash TEXT,
  is_admin INTEGER NOT NULL DEFAULT 0,
  balance_micro INTEGER NOT NULL DEFAULT 0 CHECK (balance_micro >= 0),
  webhook_secret TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
) STRICT;
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at);

CREATE TABLE ledger_entries (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  kind TEXT NOT NULL,
  reference TEXT NOT NULL,
  amount_micro INTEGER NOT NULL,
  balance_after_micro INTEGER NOT NULL CHECK (balance_after_micro >= 0),
  note TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (kind, reference)
) STRICT;
CREATE INDEX ledger_entries_user_idx ON ledger_entries (user_id, created_at);

CREATE TABLE idempotency_records (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response_json TEXT,
  status_code INTEGER,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) STRICT;
