-- Dashboard sessions (issue 5): a browser signs in with email and password and gets a random token in
-- an HttpOnly cookie; only its SHA-256 is stored. `expires_at` slides with use (idle timeout) and never
-- passes `absolute_expires_at`. `csrf_token` must come back in x-csrf-token on unsafe requests.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  token_hash TEXT NOT NULL UNIQUE,
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  absolute_expires_at INTEGER NOT NULL,
  user_agent TEXT,
  ip TEXT
) STRICT;
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);

-- Statistics (GET /api/v1/stats): covering indexes, so that a period's aggregates and the all-time sums
-- are read from the index alone, in (user, time) order. Their first two columns serve every query the
-- plain (user_id, created_at) indexes served.
CREATE INDEX tasks_user_stats_idx ON tasks (user_id, created_at, status, type, model, cost_micro);
CREATE INDEX chat_requests_user_stats_idx ON chat_requests (user_id, created_at, model, cost_micro, input_tokens, output_tokens);
