CREATE TABLE users (
  id text PRIMARY KEY,
  email text UNIQUE,
  password_hash text,
  is_admin integer NOT NULL DEFAULT 0,
  balance_micro bigint NOT NULL DEFAULT 0 CHECK (balance_micro >= 0),
  webhook_secret text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  last_used_at bigint,
  revoked_at bigint
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at);

CREATE TABLE ledger_entries (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  kind text NOT NULL,
  reference text NOT NULL,
  amount_micro bigint NOT NULL,
  balance_after_micro bigint NOT NULL CHECK (balance_after_micro >= 0),
  note text,
  created_at bigint NOT NULL,
  UNIQUE (kind, reference)
);
CREATE INDEX ledger_entries_user_idx ON ledger_entries (user_id, created_at);

CREATE TABLE idempotency_records (
  scope text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_json text,
  status_code integer,
  created_at bigint NOT NULL,
  PRIMARY KEY (scope, key)
);
