-- Upstream cost and margin (issue 32, item 6): what the served route entry's upstream charged us for a
-- chat request or a media attempt, at the entry's cost when it settled (null: no cost set for the entry,
-- or the request was settled by the chat_settle job, which knows no usage). Read by the operator's
-- per-day report of revenue, upstream cost, margin, failovers and errors, over all users by day (chat
-- requests by the index below; tasks by their time-ordered ids, with no index to slow every create).
ALTER TABLE chat_requests ADD COLUMN upstream_cost_micro INTEGER;
ALTER TABLE task_attempts ADD COLUMN upstream_cost_micro INTEGER;
CREATE INDEX chat_requests_created_idx ON chat_requests (created_at);
