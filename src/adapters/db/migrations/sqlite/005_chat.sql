-- Text generation: one row per chat request (both protocols), for billing records and statistics.
CREATE TABLE chat_requests (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  api_key_id TEXT,
  model TEXT NOT NULL,
  protocol TEXT NOT NULL,
  provider TEXT,
  upstream_model TEXT,
  stream INTEGER NOT NULL,
  status TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
  usage_estimated INTEGER NOT NULL DEFAULT 0,
  hold_micro INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL DEFAULT 0,
  latency_ms INTEGER,
  first_byte_ms INTEGER,
  error_code TEXT,
  error_message TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;
CREATE INDEX chat_requests_user_created_idx ON chat_requests (user_id, created_at);
