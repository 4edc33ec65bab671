-- Text generation, gateway side (issue 4). A request holds its most expensive outcome from the hold
-- until it settles; these columns let a recurring job find requests whose process died in between.
-- `last_seen_at` is refreshed every minute by the process serving the request (one statement for all
-- of its requests), so a long stream is never mistaken for an abandoned one.
ALTER TABLE chat_requests ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
-- How many routes were tried (1 = the first answered or failed for good).
ALTER TABLE chat_requests ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
-- Why the model stopped (end_turn, max_tokens, stop_sequence, tool_use, content_filter), when it did.
ALTER TABLE chat_requests ADD COLUMN stop_reason TEXT;
-- Usage above the hold that the balance could not cover (the prompt estimate was short): not charged.
ALTER TABLE chat_requests ADD COLUMN uncollected_micro INTEGER NOT NULL DEFAULT 0;
CREATE INDEX chat_requests_in_progress_idx ON chat_requests (last_seen_at) WHERE status = 'in_progress';
