/**
 * Agent run statuses and the only transitions allowed between them (../shared/AGENT.md, "Run
 * statuses"). Every change in the store is a compare-and-set from one of `allowedFrom(to)`, so the
 * first terminal write wins (a failure that arrives after a stop leaves the run `cancelled`). Details
 * go in `waitReason` and pending actions, not in more statuses.
 */
export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting_for_clarification',
  'waiting_for_model_approval',
  'waiting_for_budget',
  'waiting_for_media',
  'stopping',
  'completed',
  'failed',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

/** Waiting for the user: nothing moves until a reply, a decision or a budget change. */
export const USER_WAIT_STATUSES: readonly RunStatus[] = ['waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget'];

export function isTerminalRun(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status);
}

/** The conversation's one active run is in any non-terminal status except `queued`. */
export function isActiveRun(status: RunStatus): boolean {
  return status !== 'queued' && !isTerminalRun(status);
}

/** Statuses the engine steps (it has work to do without waiting for anyone). */
export function isSteppable(status: RunStatus): boolean {
  return status === 'running' || status === 'stopping' || status === 'waiting_for_media';
}

/** Why a run waits or stopped; shown as `waitReason`. */
export type WaitReason =
  | 'question'
  | 'workflow_input'
  | 'model_approval'
  | 'tool_route_consent'
  | 'run_limit'
  | 'insufficient_balance'
  | 'media'
  | 'stop_requested';

/** The statuses a run may be in for it to move to `to`. */
export function allowedFrom(to: RunStatus): RunStatus[] {
  switch (to) {
    case 'queued':
      return [];
    case 'running':
      return ['queued', 'waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget', 'waiting_for_media'];
    case 'waiting_for_clarification':
    case 'waiting_for_model_approval':
    case 'waiting_for_budget':
    case 'waiting_for_media':
      return ['running'];
    case 'stopping':
      return ['running', 'waiting_for_media', 'waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget'];
    case 'completed':
      return ['running'];
    case 'failed':
      return ['queued', 'running', 'waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget', 'waiting_for_media', 'stopping'];
    case 'cancelled':
      return ['queued', 'waiting_for_clarification', 'waiting_for_model_approval', 'waiting_for_budget', 'stopping'];
  }
}

/**
 * The statuses a compare-and-set into `to` starts from: `allowedFrom(to)`, narrowed to the caller's
 * `from` when given. A `from` can only narrow the table: a status outside it is dropped, never added.
 */
export function runMovableFrom(to: RunStatus, from?: readonly RunStatus[]): RunStatus[] {
  const allowed = allowedFrom(to);
  return from === undefined ? allowed : from.filter((status) => allowed.includes(status));
}

/**
 * Where a stop request takes a run from `status` (undefined: nothing to stop, the run has ended). A
 * run that is working, or still has operations open (a generation it dispatched before it began to
 * wait), drains through `stopping`; any other is cancelled at once.
 */
export function stopTarget(status: RunStatus, hasOpenOperations: boolean): 'cancelled' | 'stopping' | undefined {
  if (isTerminalRun(status) || status === 'stopping') return undefined;
  if (status === 'running' || status === 'waiting_for_media' || hasOpenOperations) return 'stopping';
  return 'cancelled';
}

/** The event type of a move into `to`: terminal moves have their own, every other is a status change. */
export function statusEventType(to: RunStatus): 'run.completed' | 'run.failed' | 'run.cancelled' | 'run.status_changed' {
  if (to === 'completed') return 'run.completed';
  if (to === 'failed') return 'run.failed';
  if (to === 'cancelled') return 'run.cancelled';
  return 'run.status_changed';
}
