-- Upstream answers that break billing (issue 29, items 4-6; docs/decisions.md, "Usage an upstream
-- reports is bounded by the hold").
--
-- A usage count an upstream reported that could not be billed as reported (not a number, a fraction,
-- negative, above what the request allowed, a cost above the hold), and a media callback that named
-- another job: one row per correction, for the operator (GET /admin/v1/upstream-anomalies). Rare by
-- nature; written after the settlement, outside the chat ledger's hot statements.
CREATE TABLE upstream_anomalies (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  provider TEXT,
  model TEXT NOT NULL,
  upstream_model TEXT,
  -- openai, anthropic, embeddings (chat_requests.protocol) or media.
  protocol TEXT NOT NULL,
  -- The chat request (chat_… / emb_…) or the media attempt concerned.
  reference TEXT NOT NULL,
  user_id TEXT,
  field TEXT NOT NULL,
  kind TEXT NOT NULL,
  reported TEXT NOT NULL,
  billed INTEGER
) STRICT;
-- Listed newest first by id (time-ordered), by provider or not; no other index: rare rows.
CREATE INDEX upstream_anomalies_provider_idx ON upstream_anomalies (provider, id);

-- A hold whose live settlement failed: the serving process writes the charge it could not settle
-- (the estimate) and the status it meant, and sets last_seen_at to 0, so the chat_settle job settles
-- it at its next run with that charge instead of waiting for the heartbeat to stop and releasing it.
ALTER TABLE chat_holds ADD COLUMN settle_micro INTEGER;
ALTER TABLE chat_holds ADD COLUMN settle_status TEXT;
