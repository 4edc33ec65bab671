/**
 * Task statuses and the only transitions allowed between them (DESIGN decision 6). Every change in the
 * store is a compare-and-set from one of `allowedFrom(to)`, so the first terminal write wins and a
 * refund can only come with the move into `failed`.
 */
export const TASK_STATUSES = ['not_started', 'processing', 'finished', 'failed', 'expired'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: readonly TaskStatus[] = ['finished', 'failed', 'expired'];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The statuses a task may be in for it to move to `to`. */
export function allowedFrom(to: TaskStatus): TaskStatus[] {
  switch (to) {
    case 'not_started':
      return [];
    case 'processing':
      return ['not_started'];
    case 'finished':
    case 'failed':
      return ['not_started', 'processing'];
    case 'expired':
      return ['finished'];
  }
}

/** States of one provider attempt of a task. */
export const ATTEMPT_STATES = ['submitting', 'accepted', 'succeeded', 'failed', 'unknown', 'abandoned'] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/**
 * `submitting`: we are sending (or crashed while sending) — the outcome must be reconciled, never re-sent.
 * `accepted`: the upstream has the job; we poll it. `unknown`: the submit's outcome is unknown and the
 * upstream could not tell us. `abandoned`: we moved on from an attempt whose job may still run upstream
 * (a late success is recorded on the attempt and ignored).
 */
export function isOpenAttempt(state: AttemptState): boolean {
  return state === 'submitting' || state === 'accepted' || state === 'unknown';
}
