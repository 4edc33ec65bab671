-- Media generation: tasks, one row per provider attempt, the files we copied, and webhook deliveries.
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  model TEXT NOT NULL,
  family TEXT NOT NULL,
  type TEXT NOT NULL,
  input_json TEXT NOT NULL,
  measured_json TEXT NOT NULL,
  webhook_url TEXT,
  status TEXT NOT NULL,
  cost_micro INTEGER NOT NULL,
  price_tier TEXT NOT NULL,
  price_unit TEXT NOT NULL,
  price_units REAL NOT NULL,
  routes_json TEXT NOT NULL,
  files_json TEXT,
  output_json TEXT,
  error_message TEXT,
  refunded_micro INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT,
  request_hash TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  expires_at INTEGER
) STRICT;
CREATE INDEX tasks_user_created_idx ON tasks (user_id, created_at);
CREATE UNIQUE INDEX tasks_user_idempotency_idx ON tasks (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX tasks_expiry_idx ON tasks (expires_at) WHERE status = 'finished';

CREATE TABLE task_attempts (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES tasks (id),
  attempt_no INTEGER NOT NULL,
  route_index INTEGER NOT NULL,
  provider TEXT NOT NULL,
  upstream_model TEXT NOT NULL,
  upstream_id TEXT,
  state TEXT NOT NULL,
  callback_token TEXT NOT NULL,
  error_message TEXT,
  error_retryable INTEGER,
  polls INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  accepted_at INTEGER,
  ended_at INTEGER,
  deadline_at INTEGER,
  late_outcome TEXT,
  late_at INTEGER,
  UNIQUE (task_id, attempt_no)
) STRICT;
CREATE INDEX task_attempts_upstream_idx ON task_attempts (provider, upstream_id);

CREATE TABLE stored_files (
  blob_key TEXT PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES tasks (id),
  position INTEGER NOT NULL,
  file_type TEXT NOT NULL,
  content_type TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  deleted_at INTEGER
) STRICT;
CREATE INDEX stored_files_task_idx ON stored_files (task_id);
CREATE INDEX stored_files_expiry_idx ON stored_files (expires_at) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  task_id TEXT,
  -- Sent as webhook-id: the delivery id for a task webhook; an event sent to several destinations keeps one.
  message_id TEXT NOT NULL,
  -- An agent webhook destination (its own secret); null: signed with the user's webhook secret.
  destination_id TEXT,
  event_type TEXT NOT NULL,
  url TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  UNIQUE (task_id, event_type)
) STRICT;
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (user_id, created_at);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
  attempt_no INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  UNIQUE (delivery_id, attempt_no)
) STRICT;
