-- The agent, part 1 (docs/agent.md): settings per user and storefront, conversations with their
-- messages and a full-text index, durable runs with steps, budget operations and pending actions,
-- per-conversation events with gap-free sequences, artifacts, lifecycle webhook destinations, and the
-- capabilities verified on each text route.

-- A media task dispatched by an agent run: its terminal transition wakes the run.
ALTER TABLE tasks ADD COLUMN agent_run_id TEXT;

CREATE TABLE agent_settings (
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  version INTEGER NOT NULL,
  settings_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, storefront)
) STRICT;

CREATE TABLE agent_conversations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  title TEXT,
  -- user, generated (rule 19) or null (no title yet)
  title_source TEXT,
  mode TEXT NOT NULL,
  selected_model_id TEXT,
  project_id TEXT,
  profile_id TEXT,
  default_workflow_id TEXT,
  settings_json TEXT NOT NULL,
  version INTEGER NOT NULL,
  -- The last event sequence assigned; incremented in the transaction that stores an event.
  event_seq INTEGER NOT NULL DEFAULT 0,
  -- The one active run (rule 1); set and cleared by compare-and-set.
  active_run_id TEXT,
  run_count INTEGER NOT NULL DEFAULT 0,
  last_activity_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
) STRICT;
CREATE INDEX agent_conversations_list_idx ON agent_conversations (user_id, storefront, last_activity_at, id) WHERE deleted_at IS NULL;

CREATE TABLE agent_messages (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  run_id TEXT,
  -- user or assistant
  role TEXT NOT NULL,
  -- user: new_run, followup, steer, reply
  kind TEXT NOT NULL,
  client_message_id TEXT,
  request_hash TEXT,
  -- The acceptance response, replayed for a retry with the same clientMessageId and body.
  response_json TEXT,
  content_json TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (conversation_id, client_message_id)
) STRICT;
CREATE INDEX agent_messages_conversation_idx ON agent_messages (conversation_id, created_at, id);

-- Titles and message texts, for GET /agent/conversations?q= (FTS5; PostgreSQL uses a tsvector).
CREATE VIRTUAL TABLE agent_search USING fts5(body, conversation_id UNINDEXED, doc_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE agent_runs (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  api_key_id TEXT,
  message_id TEXT NOT NULL,
  -- Order of the run in its conversation: queued follow-ups start in this order.
  run_no INTEGER NOT NULL,
  status TEXT NOT NULL,
  wait_reason TEXT,
  -- Bumped by every change of the row: the engine's and the controls' compare-and-set.
  version INTEGER NOT NULL,
  -- Bumped by whatever schedules the run's job from outside the engine (a reply, a decision, a stop,
  -- a task's end): a worker about to set the job aside sees it and runs the run again instead.
  wake_seq INTEGER NOT NULL DEFAULT 0,
  mode TEXT NOT NULL,
  orchestrator_model_id TEXT NOT NULL,
  -- Index into [orchestrator, ...fallbacks] of the model now driving the run (rule 8).
  model_attempt INTEGER NOT NULL DEFAULT 0,
  selected_model_id TEXT,
  settings_json TEXT NOT NULL,
  -- Model changes approved during the run, by modality (JSON object).
  overrides_json TEXT NOT NULL DEFAULT '{}',
  limit_micro INTEGER NOT NULL,
  settled_micro INTEGER NOT NULL DEFAULT 0,
  committed_micro INTEGER NOT NULL DEFAULT 0,
  budget_version INTEGER NOT NULL DEFAULT 1,
  -- What the dispatch that could not start needs (waiting_for_budget).
  budget_needed_micro INTEGER,
  steer_json TEXT NOT NULL DEFAULT '[]',
  step_count INTEGER NOT NULL DEFAULT 0,
  outcome_json TEXT,
  revision INTEGER NOT NULL DEFAULT 0,
  error_code TEXT,
  error_message TEXT,
  stop_requested_at INTEGER,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  updated_at INTEGER NOT NULL,
  CHECK (committed_micro >= 0 AND settled_micro >= 0 AND settled_micro + committed_micro <= limit_micro)
) STRICT;
CREATE INDEX agent_runs_conversation_idx ON agent_runs (conversation_id, run_no);
CREATE INDEX agent_runs_user_idx ON agent_runs (user_id, created_at);

CREATE TABLE agent_steps (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  -- model, tool, steer, title
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  -- running, waiting, completed, failed, cancelled
  status TEXT NOT NULL,
  tool_call_id TEXT,
  input_json TEXT NOT NULL,
  output_json TEXT,
  cost_micro INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  UNIQUE (run_id, position)
) STRICT;

-- The run's side of its money (AGENT.md "Budget"): one row per dispatch, committed at its estimate,
-- then settled at its real cost or released. The account's side is the ledger: a generation's debit
-- (refunded when it fails) or a chat request's hold and charge.
CREATE TABLE agent_operations (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  -- chat or generation
  kind TEXT NOT NULL,
  -- The chat request id or the task id.
  ref_id TEXT NOT NULL,
  model TEXT NOT NULL,
  estimate_micro INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL DEFAULT 0,
  -- committed, settled, released
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  UNIQUE (kind, ref_id)
) STRICT;
CREATE INDEX agent_operations_run_idx ON agent_operations (run_id);
CREATE INDEX agent_operations_open_idx ON agent_operations (state) WHERE state = 'committed';

CREATE TABLE agent_pending_actions (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  step_id TEXT,
  -- question or model_change
  kind TEXT NOT NULL,
  -- pending, answered, accepted, declined, cancelled, expired
  status TEXT NOT NULL,
  version INTEGER NOT NULL,
  proposal_hash TEXT,
  payload_json TEXT NOT NULL,
  response_json TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  resolved_at INTEGER
) STRICT;
CREATE INDEX agent_pending_actions_run_idx ON agent_pending_actions (run_id);

CREATE TABLE agent_events (
  conversation_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  id TEXT NOT NULL,
  run_id TEXT,
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, sequence)
) STRICT, WITHOUT ROWID;
CREATE INDEX agent_events_created_idx ON agent_events (created_at);

CREATE TABLE agent_artifacts (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  generation_id TEXT,
  output_index INTEGER,
  file_type TEXT NOT NULL,
  blob_key TEXT NOT NULL,
  content_type TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  UNIQUE (generation_id, output_index)
) STRICT;
CREATE INDEX agent_artifacts_run_idx ON agent_artifacts (run_id);

CREATE TABLE agent_webhooks (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  url TEXT NOT NULL,
  event_types_json TEXT NOT NULL,
  -- user, project or conversation
  scope TEXT NOT NULL,
  scope_id TEXT,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  disabled_at INTEGER,
  disabled_reason TEXT,
  -- The first failed delivery since the last success; five days of failures disable the destination.
  failing_since INTEGER
) STRICT;
CREATE INDEX agent_webhooks_user_idx ON agent_webhooks (user_id, storefront) WHERE revoked_at IS NULL;

-- What a probe verified on a text route (docs/agent.md, "Verified capabilities").
CREATE TABLE chat_route_capabilities (
  provider TEXT NOT NULL,
  upstream_model TEXT NOT NULL,
  -- tools, image_input, structured_output
  capability TEXT NOT NULL,
  ok INTEGER NOT NULL,
  detail TEXT,
  checked_at INTEGER NOT NULL,
  PRIMARY KEY (provider, upstream_model, capability)
) STRICT;
