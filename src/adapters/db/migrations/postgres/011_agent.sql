-- The agent, part 1 (docs/agent.md): settings per user and storefront, conversations with their
-- messages and a full-text index, durable runs with steps, budget operations and pending actions,
-- per-conversation events with gap-free sequences, artifacts, lifecycle webhook destinations, and the
-- capabilities verified on each text route.

-- A media task dispatched by an agent run: its terminal transition wakes the run.
ALTER TABLE tasks ADD COLUMN agent_run_id text;

CREATE TABLE agent_settings (
  user_id text NOT NULL,
  storefront text NOT NULL,
  version integer NOT NULL,
  settings_json text NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (user_id, storefront)
);

CREATE TABLE agent_conversations (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  title text,
  -- user, generated (rule 19) or null (no title yet)
  title_source text,
  mode text NOT NULL,
  selected_model_id text,
  project_id text,
  profile_id text,
  default_workflow_id text,
  settings_json text NOT NULL,
  version integer NOT NULL,
  -- The last event sequence assigned; incremented in the transaction that stores an event.
  event_seq integer NOT NULL DEFAULT 0,
  -- The one active run (rule 1); set and cleared by compare-and-set.
  active_run_id text,
  run_count integer NOT NULL DEFAULT 0,
  last_activity_at bigint NOT NULL,
  created_at bigint NOT NULL,
  deleted_at bigint
);
CREATE INDEX agent_conversations_list_idx ON agent_conversations (user_id, storefront, last_activity_at, id) WHERE deleted_at IS NULL;

CREATE TABLE agent_messages (
  id text PRIMARY KEY,
  conversation_id text NOT NULL,
  run_id text,
  -- user or assistant
  role text NOT NULL,
  -- user: new_run, followup, steer, reply
  kind text NOT NULL,
  client_message_id text,
  request_hash text,
  -- The acceptance response, replayed for a retry with the same clientMessageId and body.
  response_json text,
  content_json text NOT NULL,
  text text NOT NULL,
  created_at bigint NOT NULL,
  UNIQUE (conversation_id, client_message_id)
);
CREATE INDEX agent_messages_conversation_idx ON agent_messages (conversation_id, created_at, id);

-- Titles and message texts, for GET /agent/conversations?q= (a tsvector with a GIN index; SQLite uses FTS5).
CREATE TABLE agent_search (
  doc_id text PRIMARY KEY,
  conversation_id text NOT NULL,
  body text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED
);
CREATE INDEX agent_search_tsv_idx ON agent_search USING gin (tsv);
CREATE INDEX agent_search_conversation_idx ON agent_search (conversation_id);

CREATE TABLE agent_runs (
  id text PRIMARY KEY,
  conversation_id text NOT NULL,
  user_id text NOT NULL,
  storefront text NOT NULL,
  api_key_id text,
  message_id text NOT NULL,
  -- Order of the run in its conversation: queued follow-ups start in this order.
  run_no integer NOT NULL,
  status text NOT NULL,
  wait_reason text,
  -- Bumped by every change of the row: the engine's and the controls' compare-and-set.
  version integer NOT NULL,
  -- Bumped by whatever schedules the run's job from outside the engine (a reply, a decision, a stop,
  -- a task's end): a worker about to set the job aside sees it and runs the run again instead.
  wake_seq integer NOT NULL DEFAULT 0,
  mode text NOT NULL,
  orchestrator_model_id text NOT NULL,
  -- Index into [orchestrator, ...fallbacks] of the model now driving the run (rule 8).
  model_attempt integer NOT NULL DEFAULT 0,
  selected_model_id text,
  settings_json text NOT NULL,
  -- Model changes approved during the run, by modality (JSON object).
  overrides_json text NOT NULL DEFAULT '{}',
  limit_micro bigint NOT NULL,
  settled_micro bigint NOT NULL DEFAULT 0,
  committed_micro bigint NOT NULL DEFAULT 0,
  budget_version integer NOT NULL DEFAULT 1,
  -- What the dispatch that could not start needs (waiting_for_budget).
  budget_needed_micro bigint,
  steer_json text NOT NULL DEFAULT '[]',
  step_count integer NOT NULL DEFAULT 0,
  outcome_json text,
  revision integer NOT NULL DEFAULT 0,
  error_code text,
  error_message text,
  stop_requested_at bigint,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  updated_at bigint NOT NULL,
  CHECK (committed_micro >= 0 AND settled_micro >= 0 AND settled_micro + committed_micro <= limit_micro)
);
CREATE INDEX agent_runs_conversation_idx ON agent_runs (conversation_id, run_no);
CREATE INDEX agent_runs_user_idx ON agent_runs (user_id, created_at);

CREATE TABLE agent_steps (
  id text PRIMARY KEY,
  run_id text NOT NULL,
  position integer NOT NULL,
  -- model, tool, steer, title
  kind text NOT NULL,
  name text NOT NULL,
  -- running, waiting, completed, failed, cancelled
  status text NOT NULL,
  tool_call_id text,
  input_json text NOT NULL,
  output_json text,
  cost_micro bigint NOT NULL DEFAULT 0,
  started_at bigint NOT NULL,
  finished_at bigint,
  UNIQUE (run_id, position)
);

-- The run's side of its money (AGENT.md "Budget"): one row per dispatch, committed at its estimate,
-- then settled at its real cost or released. The account's side is the ledger: a generation's debit
-- (refunded when it fails) or a chat request's hold and charge.
CREATE TABLE agent_operations (
  id text PRIMARY KEY,
  run_id text NOT NULL,
  user_id text NOT NULL,
  step_id text NOT NULL,
  -- chat or generation
  kind text NOT NULL,
  -- The chat request id or the task id.
  ref_id text NOT NULL,
  model text NOT NULL,
  estimate_micro bigint NOT NULL,
  cost_micro bigint NOT NULL DEFAULT 0,
  -- committed, settled, released
  state text NOT NULL,
  created_at bigint NOT NULL,
  settled_at bigint,
  UNIQUE (kind, ref_id)
);
CREATE INDEX agent_operations_run_idx ON agent_operations (run_id);
CREATE INDEX agent_operations_open_idx ON agent_operations (state) WHERE state = 'committed';

CREATE TABLE agent_pending_actions (
  id text PRIMARY KEY,
  run_id text NOT NULL,
  step_id text,
  -- question or model_change
  kind text NOT NULL,
  -- pending, answered, accepted, declined, cancelled, expired
  status text NOT NULL,
  version integer NOT NULL,
  proposal_hash text,
  payload_json text NOT NULL,
  response_json text,
  created_at bigint NOT NULL,
  expires_at bigint,
  resolved_at bigint
);
CREATE INDEX agent_pending_actions_run_idx ON agent_pending_actions (run_id);

CREATE TABLE agent_events (
  conversation_id text NOT NULL,
  sequence integer NOT NULL,
  id text NOT NULL,
  run_id text,
  type text NOT NULL,
  data_json text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (conversation_id, sequence)
);
CREATE INDEX agent_events_created_idx ON agent_events (created_at);

CREATE TABLE agent_artifacts (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  conversation_id text NOT NULL,
  run_id text NOT NULL,
  step_id text NOT NULL,
  generation_id text,
  output_index integer,
  file_type text NOT NULL,
  blob_key text NOT NULL,
  content_type text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  UNIQUE (generation_id, output_index)
);
CREATE INDEX agent_artifacts_run_idx ON agent_artifacts (run_id);

CREATE TABLE agent_webhooks (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  url text NOT NULL,
  event_types_json text NOT NULL,
  -- user, project or conversation
  scope text NOT NULL,
  scope_id text,
  secret text NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint,
  disabled_at bigint,
  disabled_reason text,
  -- The first failed delivery since the last success; five days of failures disable the destination.
  failing_since bigint
);
CREATE INDEX agent_webhooks_user_idx ON agent_webhooks (user_id, storefront) WHERE revoked_at IS NULL;

-- What a probe verified on a text route (docs/agent.md, "Verified capabilities").
CREATE TABLE chat_route_capabilities (
  provider text NOT NULL,
  upstream_model text NOT NULL,
  -- tools, image_input, structured_output
  capability text NOT NULL,
  ok integer NOT NULL,
  detail text,
  checked_at bigint NOT NULL,
  PRIMARY KEY (provider, upstream_model, capability)
);
