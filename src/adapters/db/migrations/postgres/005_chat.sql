-- Text generation: one row per chat request (both protocols), for billing records and statistics.
CREATE TABLE chat_requests (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  api_key_id text,
  model text NOT NULL,
  protocol text NOT NULL,
  provider text,
  upstream_model text,
  stream integer NOT NULL,
  status text NOT NULL,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cached_tokens bigint NOT NULL DEFAULT 0,
  cache_creation_tokens bigint NOT NULL DEFAULT 0,
  usage_estimated integer NOT NULL DEFAULT 0,
  hold_micro bigint NOT NULL,
  cost_micro bigint NOT NULL DEFAULT 0,
  latency_ms integer,
  first_byte_ms integer,
  error_code text,
  error_message text,
  created_at bigint NOT NULL,
  finished_at bigint
);
CREATE INDEX chat_requests_user_created_idx ON chat_requests (user_id, created_at);
