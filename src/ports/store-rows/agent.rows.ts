/** The agent's tables (migration 011; docs/agent.md). Times are ms, money micro-USD, JSON is text. */
import type { AttachmentStatus } from '../../domain/agent/attachment-status.ts';
import type { OperationKind, OperationState } from '../../domain/agent/operation-state.ts';
import type { PendingActionKind, PendingActionStatus } from '../../domain/agent/pending-action-status.ts';
import type { RunStatus } from '../../domain/agent/run-status.ts';
import type { StepKind, StepStatus } from '../../domain/agent/step-status.ts';

export interface AgentSettingsRow {
  user_id: string;
  storefront: string;
  version: number;
  settings_json: string;
  updated_at: number;
}

export interface AgentConversationsRow {
  id: string;
  user_id: string;
  storefront: string;
  title: string | null;
  title_source: 'user' | 'generated' | null;
  mode: 'auto' | 'manual';
  selected_model_id: string | null;
  project_id: string | null;
  profile_id: string | null;
  default_workflow_id: string | null;
  /** Setting overrides of this conversation (a partial settings object). */
  settings_json: string;
  version: number;
  /** Filled by the store when a new row leaves it out. */
  event_seq: number;
  active_run_id: string | null;
  /** Filled by the store when a new row leaves it out. */
  run_count: number;
  last_activity_at: number;
  created_at: number;
  /** Context references (rule 13): [{targetType, targetId}] of this user's conversations. */
  /** Filled by the store when a new row leaves it out. */
  context_json: string;
  /** Filled by the store when a new row leaves it out. */
  context_version: number;
  deleted_at: number | null;
}

export type AgentMessageKind = 'new_run' | 'followup' | 'steer' | 'reply' | 'answer';

export interface AgentMessagesRow {
  id: string;
  conversation_id: string;
  run_id: string | null;
  role: 'user' | 'assistant';
  kind: AgentMessageKind;
  client_message_id: string | null;
  request_hash: string | null;
  response_json: string | null;
  content_json: string;
  text: string;
  created_at: number;
}

export interface AgentRunsRow {
  id: string;
  conversation_id: string;
  user_id: string;
  storefront: string;
  api_key_id: string | null;
  message_id: string;
  run_no: number;
  status: RunStatus;
  wait_reason: string | null;
  version: number;
  /** Filled by the store when a new row leaves it out. */
  wake_seq: number;
  mode: 'auto' | 'manual';
  orchestrator_model_id: string;
  /** Filled by the store when a new row leaves it out. */
  model_attempt: number;
  selected_model_id: string | null;
  settings_json: string;
  /** Filled by the store when a new row leaves it out. */
  overrides_json: string;
  limit_micro: number;
  /** Filled by the store when a new row leaves it out. */
  settled_micro: number;
  /** Filled by the store when a new row leaves it out. */
  committed_micro: number;
  /** Filled by the store when a new row leaves it out. */
  budget_version: number;
  budget_needed_micro: number | null;
  /** Filled by the store when a new row leaves it out. */
  steer_json: string;
  /** Filled by the store when a new row leaves it out. */
  step_count: number;
  outcome_json: string | null;
  /** Filled by the store when a new row leaves it out. */
  revision: number;
  output_schema_json: string | null;
  structured_mode: 'auto' | 'extract' | null;
  schema_hash: string | null;
  structured_json: string | null;
  structured_result_json: string | null;
  /** A built-in workflow the run carries out (rule 14): {id, version, input}. */
  workflow_json: string | null;
  /** The context the run may read (rule 13): [{conversationId, title, until}], captured when it was created. */
  context_json: string | null;
  error_code: string | null;
  error_message: string | null;
  stop_requested_at: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

export interface AgentStepsRow {
  id: string;
  run_id: string;
  position: number;
  kind: StepKind;
  name: string;
  status: StepStatus;
  tool_call_id: string | null;
  input_json: string;
  output_json: string | null;
  /** Filled by the store when a new row leaves it out. */
  cost_micro: number;
  started_at: number;
  finished_at: number | null;
}

export interface AgentOperationsRow {
  id: string;
  run_id: string;
  user_id: string;
  step_id: string;
  kind: OperationKind;
  ref_id: string;
  model: string;
  estimate_micro: number;
  /** Filled by the store when a new row leaves it out. */
  cost_micro: number;
  state: OperationState;
  created_at: number;
  settled_at: number | null;
}

export interface AgentPendingActionsRow {
  id: string;
  run_id: string;
  step_id: string | null;
  kind: PendingActionKind;
  status: PendingActionStatus;
  version: number;
  proposal_hash: string | null;
  payload_json: string;
  response_json: string | null;
  created_at: number;
  expires_at: number | null;
  resolved_at: number | null;
}

export interface AgentEventsRow {
  conversation_id: string;
  sequence: number;
  id: string;
  run_id: string | null;
  type: string;
  data_json: string;
  created_at: number;
}

export interface AgentArtifactsRow {
  id: string;
  user_id: string;
  storefront: string;
  conversation_id: string;
  run_id: string;
  step_id: string;
  generation_id: string | null;
  output_index: number | null;
  file_type: string;
  blob_key: string;
  content_type: string;
  created_at: number;
  expires_at: number | null;
}

export interface AgentAttachmentsRow {
  id: string;
  user_id: string;
  storefront: string;
  conversation_id: string;
  name: string;
  mime: string;
  size_bytes: number;
  status: AttachmentStatus;
  blob_key: string;
  upload_token_hash: string;
  facts_json: string | null;
  /** What a run reads of a text or PDF original (at most 20,000 characters), taken once at completion (migration 022). */
  text_excerpt: string | null;
  sha256: string | null;
  created_at: number;
  upload_expires_at: number;
  completed_at: number | null;
  expires_at: number | null;
}

export interface AgentWebhooksRow {
  id: string;
  user_id: string;
  storefront: string;
  url: string;
  event_types_json: string;
  scope: 'user' | 'project' | 'conversation';
  scope_id: string | null;
  secret: string;
  created_at: number;
  revoked_at: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  failing_since: number | null;
}

export interface ChatRouteCapabilitiesRow {
  provider: string;
  upstream_model: string;
  capability: string;
  ok: number;
  detail: string | null;
  checked_at: number;
}
