-- Upstream answers that break billing (issue 29, items 4-6; docs/decisions.md, "Usage an upstream
-- reports is bounded by the hold").
--
-- A usage count an upstream reported that could not be billed as reported (not a number, a fraction,
-- negative, above what the request allowed, a cost above the hold), and a media callback that named
-- another job: one row per correction, for the operator (GET /admin/v1/upstream-anomalies). Rare by
-- nature; written after the settlement, outside the chat ledger's hot statements.
CREATE TABLE upstream_anomalies (
  id text PRIMARY KEY,
  created_at bigint NOT NULL,
  provider text,
  model text NOT NULL,
  upstream_model text,
  -- openai, anthropic, embeddings (chat_requests.protocol) or media.
  protocol text NOT NULL,
  -- The chat request (chat_… / emb_…) or the media attempt concerned.
  reference text NOT NULL,
  user_id text,
  field text NOT NULL,
  kind text NOT NULL,
  reported text NOT NULL,
  billed bigint
);
-- Listed newest first by id (time-ordered), by provider or not; no other index: rare rows.
CREATE INDEX upstream_anomalies_provider_idx ON upstream_anomalies (provider, id);

-- A hold whose live settlement failed: the serving process writes the charge it could not settle
-- (the estimate) and the status it meant, and sets last_seen_at to 0, so the chat_settle job settles
-- it at its next run with that charge instead of waiting for the heartbeat to stop and releasing it.
ALTER TABLE chat_holds ADD COLUMN settle_micro bigint;
ALTER TABLE chat_holds ADD COLUMN settle_status text;
