/**
 * The progress of a media task as its owner may see it (issue 34, item 3), derived from the task's
 * row and its attempts' rows, which every transition already writes durably: no event table. The
 * list only ever grows at its end (attempts are made one after another, and an attempt's events are
 * listed only once its row says they happened), so an event's place in it is a stable id that a
 * reader resumes after (`Last-Event-ID`).
 *
 * What a customer sees: the attempt number, never the provider or the upstream model we routed to,
 * nor an attempt's own error (which may name them); the task's errorMessage is shown as GET
 * /task/status shows it.
 */
import type { AttemptState, TaskStatus } from './task-status.ts';

export type TaskEventType = 'queued' | 'dispatched' | 'accepted' | 'failover' | 'copying' | 'finished' | 'failed' | 'expired';

export interface TaskEvent {
  /** 1-based place in the task's list: the SSE `id:`. */
  id: number;
  type: TaskEventType;
  /** ISO 8601. */
  at: string;
  /** The task's status once this happened. */
  status: TaskStatus;
  message: string;
  attempt?: number;
  files?: number;
  error?: string | null;
}

/** The columns of a task the events are made of. */
export interface TaskEventSource {
  status: TaskStatus;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
  error_message: string | null;
  files_json: string | null;
}

/** The error of an attempt recorded for a task that had ended meanwhile (a cancel): nothing was sent for it. */
export const ATTEMPT_NOT_SENT = 'the task ended before this attempt was sent';

/** The columns of an attempt the events are made of. */
export interface AttemptEventSource {
  attempt_no: number;
  error_message: string | null;
  state: AttemptState;
  started_at: number;
  accepted_at: number | null;
  ended_at: number | null;
}

export function deriveTaskEvents(task: TaskEventSource, attempts: readonly AttemptEventSource[]): TaskEvent[] {
  const events: Array<Omit<TaskEvent, 'id'>> = [];
  const iso = (ms: number | null | undefined): string => new Date(ms ?? task.updated_at).toISOString();
  events.push({ type: 'queued', at: iso(task.created_at), status: 'not_started', message: 'queued' });
  // An attempt recorded after the task ended (a step that lost the race with a cancel) is not part of its story.
  const ended = task.finished_at;
  const ordered = attempts.filter((a) => a.error_message !== ATTEMPT_NOT_SENT && (ended === null || a.started_at <= ended)).sort((a, b) => a.attempt_no - b.attempt_no);
  for (const [i, attempt] of ordered.entries()) {
    const n = attempt.attempt_no;
    events.push({ type: 'dispatched', at: iso(attempt.started_at), status: 'processing', message: `sent to a provider (attempt ${n})`, attempt: n });
    if (attempt.accepted_at !== null) events.push({ type: 'accepted', at: iso(attempt.accepted_at), status: 'processing', message: `the provider accepted the job (attempt ${n})`, attempt: n });
    const next = ordered[i + 1];
    if (next && (attempt.state === 'failed' || attempt.state === 'abandoned')) {
      const why = attempt.state === 'abandoned' ? 'did not finish in time' : 'failed';
      events.push({ type: 'failover', at: iso(attempt.ended_at ?? next.started_at), status: 'processing', message: `attempt ${n} ${why}; trying another provider (attempt ${next.attempt_no})`, attempt: n });
    }
    if (attempt.state === 'succeeded') events.push({ type: 'copying', at: iso(attempt.ended_at ?? task.finished_at), status: 'processing', message: 'copying the result files to storage', attempt: n });
  }
  if (task.status === 'finished' || task.status === 'expired') {
    const files = task.files_json ? (JSON.parse(task.files_json) as unknown[]).length : 0;
    events.push({ type: 'finished', at: iso(task.finished_at), status: 'finished', message: `finished with ${files} file${files === 1 ? '' : 's'}`, files });
  }
  if (task.status === 'expired') events.push({ type: 'expired', at: iso(task.updated_at), status: 'expired', message: 'the files were deleted at the end of their retention' });
  if (task.status === 'failed') {
    events.push({ type: 'failed', at: iso(task.finished_at), status: 'failed', message: `failed: ${task.error_message ?? 'the generation failed'}; refunded`, error: task.error_message });
  }
  return events.map((event, index) => ({ id: index + 1, ...event }));
}
