-- Statistics (GET /api/v1/stats), see docs/decisions.md "Dashboard and statistics". Replaces the
-- (user_id, created_at) stats indexes of 006 with indexes ordered by user and UTC day.
DROP INDEX tasks_user_stats_idx;
DROP INDEX chat_requests_user_stats_idx;

-- Covering indexes (index-only scans) by user and UTC day (`created_at / 86400000`, times being
-- milliseconds), in GROUP BY order.
CREATE INDEX tasks_user_day_stats_idx ON tasks (user_id, (created_at / 86400000), model, type, status) INCLUDE (cost_micro, created_at);
CREATE INDEX chat_requests_user_day_stats_idx ON chat_requests (user_id, (created_at / 86400000), model) INCLUDE (cost_micro, input_tokens, output_tokens, created_at);

-- All-time spend up to a settled day, so that spentAllTime reads only the days after it. A day is
-- settled once it ended more than 24 hours ago and none of its tasks or chat requests is still running
-- (a task's spend cannot change after its terminal status; a chat's after it settled).
CREATE TABLE stats_checkpoints (
  user_id text PRIMARY KEY REFERENCES users (id),
  through_day integer NOT NULL,
  spent_micro bigint NOT NULL,
  updated_at bigint NOT NULL
);
