import type { AttemptRow, TaskRow } from '../../src/adapters/db/repositories/tasks.repository.ts';
import { newId } from '../../src/domain/ids.ts';

/** A task row as the store keeps it (an image on the `local` route, not started), for tests that write rows directly. */
export function taskRow(userId: string, now: number, changes: Partial<TaskRow> = {}): TaskRow {
  return {
    id: newId('task', now), user_id: userId, model: 'z-image-turbo', family: 'image', type: 'IMAGE', input_json: '{}', measured_json: '{}', webhook_url: null,
    status: 'not_started', cost_micro: 1000, price_tier: 'default', price_unit: 'image', price_units: 1, routes_json: '[{"provider":"local","model":"z"}]',
    files_json: null, output_json: null, error_message: null, refunded_micro: 0, idempotency_key: null, request_hash: null,
    created_at: now, updated_at: now, started_at: null, finished_at: null, expires_at: null,
    ...changes,
  };
}

/** The task's first attempt, accepted by the `local` route as `up-1`. */
export function attemptRow(task: Pick<TaskRow, 'id'>, now: number, changes: Partial<AttemptRow> = {}): AttemptRow {
  return {
    id: newId('att', now), task_id: task.id, attempt_no: 1, route_index: 0, provider: 'local', upstream_model: 'z', upstream_id: 'up-1', state: 'accepted',
    callback_token: 'cb-1', error_message: null, error_retryable: null, polls: 0, started_at: now, accepted_at: now, ended_at: null, deadline_at: null,
    late_outcome: null, late_at: null, key_id: null,
    ...changes,
  };
}
