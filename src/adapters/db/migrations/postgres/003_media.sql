-- Media generation: tasks, one row per provider attempt, the files we copied, and webhook deliveries.
CREATE TABLE tasks (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  model text NOT NULL,
  family text NOT NULL,
  type text NOT NULL,
  input_json text NOT NULL,
  measured_json text NOT NULL,
  webhook_url text,
  status text NOT NULL,
  cost_micro bigint NOT NULL,
  price_tier text NOT NULL,
  price_unit text NOT NULL,
  price_units double precision NOT NULL,
  routes_json text NOT NULL,
  files_json text,
  output_json text,
  error_message text,
  refunded_micro bigint NOT NULL DEFAULT 0,
  idempotency_key text,
  request_hash text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  expires_at bigint
);
CREATE INDEX tasks_user_created_idx ON tasks (user_id, created_at);
CREATE UNIQUE INDEX tasks_user_idempotency_idx ON tasks (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX tasks_expiry_idx ON tasks (expires_at) WHERE status = 'finished';

CREATE TABLE task_attempts (
  id text PRIMARY KEY,
  task_id text NOT NULL REFERENCES tasks (id),
  attempt_no integer NOT NULL,
  route_index integer NOT NULL,
  provider text NOT NULL,
  upstream_model text NOT NULL,
  upstream_id text,
  state text NOT NULL,
  callback_token text NOT NULL,
  error_message text,
  error_retryable integer,
  polls integer NOT NULL DEFAULT 0,
  started_at bigint NOT NULL,
  accepted_at bigint,
  ended_at bigint,
  deadline_at bigint,
  late_outcome text,
  late_at bigint,
  UNIQUE (task_id, attempt_no)
);
CREATE INDEX task_attempts_upstream_idx ON task_attempts (provider, upstream_id);

CREATE TABLE stored_files (
  blob_key text PRIMARY KEY,
  task_id text NOT NULL REFERENCES tasks (id),
  position integer NOT NULL,
  file_type text NOT NULL,
  content_type text NOT NULL,
  bytes bigint NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  deleted_at bigint
);
CREATE INDEX stored_files_task_idx ON stored_files (task_id);
CREATE INDEX stored_files_expiry_idx ON stored_files (expires_at) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  task_id text,
  -- Sent as webhook-id: the delivery id for a task webhook; an event sent to several destinations keeps one.
  message_id text NOT NULL,
  -- An agent webhook destination (its own secret); null: signed with the user's webhook secret.
  destination_id text,
  event_type text NOT NULL,
  url text NOT NULL,
  payload_json text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint,
  last_status_code integer,
  last_error text,
  created_at bigint NOT NULL,
  delivered_at bigint,
  UNIQUE (task_id, event_type)
);
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (user_id, created_at);

CREATE TABLE webhook_attempts (
  id text PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
  attempt_no integer NOT NULL,
  started_at bigint NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  UNIQUE (delivery_id, attempt_no)
);
