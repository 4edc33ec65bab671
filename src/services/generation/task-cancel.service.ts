import type { Metrics } from '../../adapters/metrics/metrics.ts';
import { AppError } from '../../domain/errors.ts';
import { isTerminal, type TaskStatus } from '../../domain/tasks/task-status.ts';
import type { AttemptRow, TaskRow } from '../../ports/task-store.port.ts';
import type { CancelOutcome, MediaJob, MediaProvider } from '../../providers/media/media-provider.ts';
import { CANCEL_REQUESTED, CANCELLED_BY_CLIENT, failTask, type TaskMovePorts, type TerminalHook } from './task-transitions.ts';


/** What POST /task/{taskId}/cancel answers. */
export interface CancelAnswer {
  taskId: string;
  cancelled: boolean;
  /** The task's status after the call. */
  status: TaskStatus;
  /** Why nothing was cancelled (null when it was). */
  reason: string | null;
}

export interface TaskCancellerDeps extends TaskMovePorts {
  /** The adapter of a provider's key (null: its first key). */
  providers: (name: string, keyId: string | null) => MediaProvider | undefined;
  /** What the provider is told about an attempt (the runner's own job description). */
  jobOf: (task: TaskRow, attempt: AttemptRow, signal: AbortSignal) => MediaJob;
  onTerminal: TerminalHook;
  /** After a cancel committed (the move into `failed`): announces it to waiting readers. */
  afterCancel?: (task: TaskRow) => Promise<void>;
  metrics: Metrics;
  now?: () => number;
}

const CANCEL_CALL_MS = 30_000;

const REASONS = {
  accepted: 'the provider already accepted the job; it will finish and be charged',
  handingOver: 'the job is being handed to a provider, which may already have it; it will finish and be charged (a failure is refunded)',
  running: 'the provider was asked to stop the running job but may finish it; if it finishes it is charged, if it stops the task fails and is refunded',
  runningBilled: 'the provider is already running the job and bills a stopped run; it will finish and be charged',
  providerFinished: 'the provider had already finished the job; it will be delivered and charged',
  providerRefused: 'the provider could not be asked to stop the job; it will finish and be charged',
} as const;

/**
 * A client's cancel of a media task (issue 34, item 1). The only writes are the task's one move into
 * `failed` (compare-and-set on the status, which also writes the refund, once) and, for an upstream
 * that confirmed the stop, the attempt's move out of `accepted`: a cancel that races with the worker
 * finishing the task either wins (refunded, the late result discarded) or loses (delivered and charged),
 * never both.
 * - no open attempt (not started yet, or between two routes): failed and refunded in full;
 * - accepted by an upstream whose API can cancel, and it confirms: failed and refunded in full;
 * - otherwise the job goes on, and the answer says why.
 */
export class TaskCanceller {
  readonly #deps: TaskCancellerDeps;
  readonly #now: () => number;

  constructor(deps: TaskCancellerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async cancel(userId: string, taskId: string): Promise<CancelAnswer> {
    const { tasks, uow } = this.#deps;
    const task = await tasks.findUserTask(uow.direct, userId, taskId);
    if (!task) throw new AppError('task_not_found', `task ${taskId} not found`);
    if (isTerminal(task.status)) return this.#refused(task, `the task already ended (${task.status})`);
    const attempt = (await tasks.findTasksWithLatestAttempt(uow.direct, [task.id])).get(task.id)?.attempt;
    if (!attempt || attempt.state === 'failed' || attempt.state === 'abandoned') return this.#fail(task);
    if (attempt.state === 'submitting' || attempt.state === 'unknown') return this.#refused(task, REASONS.handingOver);
    if (attempt.state === 'succeeded' || !attempt.upstream_id) return this.#refused(task, REASONS.providerFinished);
    const provider = this.#deps.providers(attempt.provider, attempt.key_id);
    if (!provider?.cancel) return this.#refused(task, REASONS.accepted);
    // Marked before the upstream is asked: a worker that then reads `canceled` upstream fails the task
    // as cancelled (no failover, the same message and refund note) instead of racing this call.
    if (!(await tasks.moveAttempt(uow.direct, attempt.id, ['accepted'], { error_message: CANCEL_REQUESTED }))) return this.cancel(userId, taskId);
    const upstreamId = attempt.upstream_id;
    const outcome = await provider
      .cancel(this.#deps.jobOf(task, attempt, AbortSignal.timeout(CANCEL_CALL_MS)), upstreamId)
      .catch((error: unknown): CancelOutcome => ({ kind: 'failed', error: { message: error instanceof Error ? error.message : String(error), retryable: true } }));
    switch (outcome.kind) {
      case 'cancelled':
        await tasks.moveAttempt(uow.direct, attempt.id, ['accepted'], { state: 'failed', error_message: CANCELLED_BY_CLIENT, error_retryable: 0, ended_at: this.#now() });
        return this.#fail(task);
      case 'requested':
        // The mark stays: if the job stops, the worker fails the task as cancelled; if it finishes, it is delivered.
        return this.#refused(task, REASONS.running);
      case 'running':
        // Stopping it would still be billed by the vendor: it finishes and is charged.
        await tasks.moveAttempt(uow.direct, attempt.id, ['accepted'], { error_message: null });
        return this.#refused(task, REASONS.runningBilled);
      case 'too_late':
        await tasks.moveAttempt(uow.direct, attempt.id, ['accepted'], { error_message: null });
        return this.#refused(task, REASONS.providerFinished);
      case 'failed':
        await tasks.moveAttempt(uow.direct, attempt.id, ['accepted'], { error_message: null });
        return this.#refused(task, REASONS.providerRefused);
    }
  }

  /** The move into `failed` with the full refund; losing it means the task ended meanwhile. */
  async #fail(task: TaskRow): Promise<CancelAnswer> {
    const won = await failTask(this.#deps, task, CANCELLED_BY_CLIENT, this.#now(), this.#deps.onTerminal, undefined, CANCELLED_BY_CLIENT);
    if (!won) {
      const now = await this.#deps.tasks.findTask(this.#deps.uow.direct, task.id);
      const status = now?.status ?? task.status;
      // The worker read the upstream's stop first and failed the task as cancelled (the refund is its).
      if (status === 'failed' && now?.error_message === CANCELLED_BY_CLIENT) return { taskId: task.id, cancelled: true, status, reason: null };
      return { taskId: task.id, cancelled: false, status, reason: isTerminal(status) ? `the task ended first (${status})` : REASONS.handingOver };
    }
    this.#deps.metrics.tasks.inc({ model: task.model, status: 'failed' });
    if (task.cost_micro > 0) this.#deps.metrics.ledgerEntries.inc({ kind: 'generation_refund' });
    await this.#deps.afterCancel?.(task);
    return { taskId: task.id, cancelled: true, status: 'failed', reason: null };
  }

  #refused(task: TaskRow, reason: string): CancelAnswer {
    return { taskId: task.id, cancelled: false, status: task.status, reason };
  }
}
