-- Dashboard sessions (issue 5): a browser signs in with email and password and gets a random token in
-- an HttpOnly cookie; only its SHA-256 is stored. `expires_at` slides with use (idle timeout) and never
-- passes `absolute_expires_at`. `csrf_token` must come back in x-csrf-token on unsafe requests.
CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  csrf_token text NOT NULL,
  created_at bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  absolute_expires_at bigint NOT NULL,
  user_agent text,
  ip text
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);

-- Statistics (GET /api/v1/stats): covering indexes (index-only scans), so that a period's aggregates
-- and the all-time sums never visit the table rows.
CREATE INDEX tasks_user_stats_idx ON tasks (user_id, created_at) INCLUDE (status, type, model, cost_micro);
CREATE INDEX chat_requests_user_stats_idx ON chat_requests (user_id, created_at) INCLUDE (model, cost_micro, input_tokens, output_tokens);
