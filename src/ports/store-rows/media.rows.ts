/** Rows of the media tables, as the store ports hand them out. */
import type { AttemptState, TaskStatus } from '../../domain/tasks/task-status.ts';

export interface TasksRow {
  id: string;
  user_id: string;
  model: string;
  family: string;
  /** IMAGE, VIDEO or MUSIC. */
  type: string;
  /** The validated input (defaults applied). */
  input_json: string;
  /** Durations and formats of user media measured before charging. */
  measured_json: string;
  webhook_url: string | null;
  status: TaskStatus;
  /** What the create debited (and a failure refunds), micro-USD. */
  cost_micro: number;
  price_tier: string;
  price_unit: string;
  price_units: number;
  /** The ordered routes this task may use, fixed at create: [{provider, model}]. */
  routes_json: string;
  files_json: string | null;
  output_json: string | null;
  error_message: string | null;
  refunded_micro: number;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  /** The agent run that dispatched this task (migration 011); its terminal transition wakes the run. */
  agent_run_id?: string | null;
  /** The API key it was created with (migration 018); null from a dashboard session or before 018. */
  api_key_id?: string | null;
}

export interface TaskAttemptsRow {
  id: string;
  task_id: string;
  attempt_no: number;
  route_index: number;
  provider: string;
  upstream_model: string;
  upstream_id: string | null;
  state: AttemptState;
  /** Part of the callback URL given to the upstream, so only it can call back for this attempt. */
  callback_token: string;
  error_message: string | null;
  error_retryable: number | null;
  polls: number;
  started_at: number;
  accepted_at: number | null;
  ended_at: number | null;
  /** Poll or reconcile deadline: past it, the attempt is abandoned and the next route is tried. */
  deadline_at: number | null;
  /** An outcome reported after we moved on (recorded, ignored). */
  late_outcome: string | null;
  late_at: number | null;
  /** The provider key the attempt used (issue 32): its polls and cancels use the same one. Null: the provider's first key (attempts before migration 037). */
  key_id: string | null;
  /** What the upstream charged us for this attempt's result (issue 32, item 6; migration 038): the entry's cost for the task's tier times its units. Null: no cost set, or no result. */
  upstream_cost_micro?: number | null;
}

export interface StoredFilesRow {
  blob_key: string;
  task_id: string;
  position: number;
  file_type: string;
  content_type: string;
  bytes: number;
  created_at: number;
  expires_at: number;
  deleted_at: number | null;
}

export interface WebhookDeliveriesRow {
  id: string;
  user_id: string;
  task_id: string | null;
  /** Sent as `webhook-id` on every attempt: the delivery id for a task webhook. */
  message_id: string;
  /** An agent webhook destination with its own secret; null: the user's webhook secret signs. */
  destination_id: string | null;
  event_type: string;
  url: string;
  /** The exact body sent (and signed) on every attempt. */
  payload_json: string;
  /** pending, delivered, failed (gave up, or the receiver answered 410 Gone) */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface WebhookAttemptsRow {
  id: string;
  delivery_id: string;
  attempt_no: number;
  started_at: number;
  duration_ms: number;
  /** The receiver's HTTP status; null when no response came (refused, timeout, connection error). */
  status_code: number | null;
  /** Why the attempt did not succeed; null for a 2xx. */
  error: string | null;
}
