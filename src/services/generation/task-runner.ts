import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { RouteTarget } from '../../config/config.types.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { MeasuredMedia, ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import { AppError, unavailableDependency } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isOpenAttempt, isTerminal } from '../../domain/tasks/task-status.ts';
import { ATTEMPT_NOT_SENT } from '../../domain/tasks/task-events.ts';
import type { ClaimedJob, JobContext, JobOutcome, WorkQueue } from '../../ports/work-queue.port.ts';
import type { CallbackNotice, MediaJob, MediaProvider, ProviderError, UpstreamResult } from '../../providers/media/media-provider.ts';
import { newJob } from '../../domain/jobs/job-catalog.ts';
import { ResultCopyError, type ResultStore } from './result-store.ts';
import type { Tracer } from '../../ports/tracer.port.ts';
import type { UpstreamAnomalyLog } from '../../ports/upstream-anomalies.port.ts';
import { traceMediaCall } from './media-spans.ts';
import { TaskStepReader } from './task-step-reader.ts';
import { attemptUpstreamCost } from './attempt-cost.ts';
import { CANCEL_REQUESTED, CANCELLED_BY_CLIENT, failTask, type TerminalHook } from './task-transitions.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { AttemptRow, TaskRow, TaskStore } from '../../ports/task-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { RoutePlanner } from '../upstreams/route-planner.ts';
import { mediaFailureOf } from '../upstreams/upstream-failure.ts';

/** The job a step runs for: the step ends it in its own final transaction, through its lease. */
interface StepJob {
  id: string;
  lease: JobContext;
}

export interface TaskRunnerTimings {
  /** How long an accepted upstream job may take before we abandon it and try the next route. */
  maxJobMs: number;
  /** How long we keep asking about a submit whose outcome is unknown before moving on. */
  reconcileWindowMs: number;
  /** Longest wait between two polls. */
  maxPollIntervalMs: number;
}

/**
 * A result the provider can give again (a pollable job) waits this long for our store in the step, then
 * gives its slot back and is fetched again later; the attempt's deadline is moved so the wait is ours.
 */
const STORAGE_PATIENCE_IN_STEP_MS = 20_000;
const STORAGE_RETRY_STEP_MS = 10_000;
/** How long a finished upstream job may wait for our store before the attempt's deadline applies again. */
const STORAGE_OUTAGE_GRACE_MS = 24 * 3_600_000;

export const DEFAULT_TIMINGS: TaskRunnerTimings = { maxJobMs: 45 * 60_000, reconcileWindowMs: 10 * 60_000, maxPollIntervalMs: 30_000 };

export interface TaskRunnerDeps {
  tasks: TaskStore;
  uow: UnitOfWork;
  /** The book a failed task's refund is written in. */
  ledger: LedgerBook;
  /** Where a callback's wake-up of its task goes. */
  queue: WorkQueue;
  catalog: Catalog;
  /** The adapter of a provider's key (null: its first key). */
  providers: (name: string, keyId: string | null) => MediaProvider | undefined;
  /** Health-aware key choice and health reports (issue 32); absent: the first key, nothing reported. */
  keys?: Pick<RoutePlanner, 'chooseKey' | 'report'>;
  results: ResultStore;
  onTerminal: TerminalHook;
  callbackBaseUrl: () => string;
  fileRetentionMs: number;
  logger: Logger;
  metrics: Metrics;
  timings: (provider: string) => TaskRunnerTimings;
  now?: () => number;
  /** The gateway's calendar (the clock tests move), which dates the 3-day retention of files. */
  calendarNow?: () => number;
  /** A span per upstream call (media-spans.ts); none: the no-op tracer. */
  tracer?: Tracer;
  /** Where a callback naming another job is recorded for the operator; none: logged only. */
  anomalies?: UpstreamAnomalyLog;
}

/**
 * Advances one task by one step each time its job runs (decisions 6 and 7). Every step reads the
 * state from the store and changes it by compare-and-set, so a step that runs twice, or after a crash,
 * does no harm:
 * - no attempt yet, or the last one failed/abandoned → start the next route (or fail and refund);
 * - `submitting` found at the start of a step → the process died while sending: reconcile, never re-send;
 * - `unknown` → keep reconciling until the window closes, then abandon and move on;
 * - `accepted` → poll until done, failed, or past the deadline (then abandon and move on).
 */
export class TaskRunner {
  private readonly deps: TaskRunnerDeps;
  private readonly now: () => number;
  private readonly reader: TaskStepReader;
  private readonly tasks: TaskStore;
  /** The store outside a transaction: a step's writes are single compare-and-set statements. */
  private readonly direct: StoreTransaction;

  constructor(deps: TaskRunnerDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
    this.tasks = deps.tasks;
    this.direct = deps.uow.direct;
    this.reader = new TaskStepReader(deps.tasks, this.direct);
  }

  readonly handle = async (job: ClaimedJob, signal: AbortSignal, context: JobContext): Promise<JobOutcome> => {
    const step = await this.reader.read(job.refId);
    if (!step || isTerminal(step.task.status)) return { kind: 'done' };
    const { task, attempt: current } = step;
    const stepJob: StepJob = { id: job.id, lease: context };
    const routes = JSON.parse(task.routes_json) as RouteTarget[];
    // The usual first step moves the task to `processing` in the statement that records its first attempt.
    if (!current) return this.startAttempt(task, routes, 0, 1, signal, undefined, stepJob);
    if (task.status === 'not_started') {
      const now = this.now();
      await this.tasks.moveTask(this.direct, task.id, 'processing', { started_at: now, updated_at: now });
      task.status = 'processing';
    }
    switch (current.state) {
      case 'submitting':
      case 'unknown':
        return this.reconcile(task, routes, current, signal, stepJob);
      case 'accepted':
        return this.poll(task, routes, current, signal, stepJob);
      case 'succeeded':
        return { kind: 'done' };
      case 'failed':
      case 'abandoned':
        return this.startAttempt(task, routes, current.route_index + 1, current.attempt_no + 1, signal, current.error_message ?? undefined, stepJob);
    }
  };

  /**
   * The give-up hook of `task` jobs (the poison-job rule, src/domain/jobs/job-catalog.ts): a task whose
   * steps keep failing unexpectedly is failed and refunded through the one transition into `failed`
   * (the refund written once, by whoever wins the compare-and-set). An attempt an upstream accepted
   * is left as it is: a late result is recorded and ignored, as for any abandoned attempt.
   */
  readonly giveUp = async (job: ClaimedJob): Promise<JobOutcome> => {
    const task = await this.tasks.findTask(this.direct, job.refId);
    if (!task || isTerminal(task.status)) return { kind: 'done' };
    if (task.status === 'not_started') {
      const now = this.now();
      await this.tasks.moveTask(this.direct, task.id, 'processing', { started_at: now, updated_at: now });
      task.status = 'processing';
    }
    if (await failTask(this.deps, task, 'the gateway could not process this task (an internal error, repeated); it was refunded', this.now(), this.deps.onTerminal)) {
      this.deps.metrics.tasks.inc({ model: task.model, status: 'failed' });
      this.deps.metrics.ledgerEntries.inc({ kind: 'generation_refund' });
    }
    return { kind: 'done' };
  };

  private async startAttempt(
    task: TaskRow,
    routes: RouteTarget[],
    routeIndex: number,
    attemptNo: number,
    signal: AbortSignal,
    lastError: string | undefined,
    job: StepJob,
  ): Promise<JobOutcome> {
    const route = routes[routeIndex];
    if (!route) {
      if (task.status === 'not_started') {
        const now = this.now();
        await this.tasks.moveTask(this.direct, task.id, 'processing', { started_at: now, updated_at: now });
        task.status = 'processing';
      }
      return this.fail(task, lastError ?? 'every provider failed', job);
    }
    const now = this.now();
    const choice = this.deps.keys?.chooseKey(route.provider, now);
    const attempt: AttemptRow = {
      key_id: choice && 'keyId' in choice ? choice.keyId : null,
      id: newId('att', now),
      task_id: task.id,
      attempt_no: attemptNo,
      route_index: routeIndex,
      provider: route.provider,
      upstream_model: route.model,
      upstream_id: null,
      state: 'submitting',
      callback_token: randomBytes(24).toString('base64url'),
      error_message: null,
      error_retryable: null,
      polls: 0,
      started_at: now,
      accepted_at: null,
      ended_at: null,
      deadline_at: null,
      late_outcome: null,
      late_at: null,
    };
    // Recorded before sending: if we die mid-submit, the next step finds `submitting` and reconciles.
    let open: boolean;
    if (task.status === 'not_started') {
      open = await this.tasks.recordFirstAttempt(this.direct, attempt, now);
      task.status = 'processing';
      task.started_at = now;
    } else open = await this.tasks.recordAttempt(this.direct, attempt);
    if (!open) {
      // The task ended since this step read it (a client cancelled it): nothing is sent upstream.
      await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting'], { state: 'abandoned', error_message: ATTEMPT_NOT_SENT, error_retryable: 0, ended_at: this.now() });
      return { kind: 'done' };
    }
    if (choice && 'refused' in choice) return this.attemptFailed(task, routes, attempt, { message: choice.refused, retryable: true }, undefined, job);
    const provider = this.deps.providers(route.provider, attempt.key_id);
    if (!provider) return this.attemptFailed(task, routes, attempt, { message: `provider ${route.provider} is not configured`, retryable: true }, undefined, job);
    const outcome = await traceMediaCall(this.deps.tracer, 'submit', task, attempt, () => provider.submit(this.mediaJob(task, attempt, signal)));
    this.deps.metrics.providerCalls.inc({ provider: route.provider, kind: 'media', outcome: outcome.kind });
    if (outcome.kind !== 'unknown') this.#report(attempt, outcome.kind === 'failed' ? outcome.error : undefined);
    switch (outcome.kind) {
      case 'accepted': {
        const accepted = await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting'], {
          state: 'accepted',
          upstream_id: outcome.upstreamId,
          accepted_at: this.now(),
          deadline_at: this.now() + this.deps.timings(route.provider).maxJobMs,
        });
        if (!accepted) return { kind: 'again', runAt: this.now() };
        return { kind: 'again', runAt: this.now() + (outcome.pollAfterMs ?? provider.defaultPollMs), queue: route.provider };
      }
      case 'completed':
        return this.complete(task, routes, { ...attempt, upstream_id: outcome.upstreamId ?? null }, outcome.result, job, signal);
      case 'failed':
        return this.attemptFailed(task, routes, attempt, outcome.error, undefined, job);
      case 'unknown':
        await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting'], {
          state: 'unknown',
          error_message: outcome.error.message,
          deadline_at: this.now() + this.deps.timings(route.provider).reconcileWindowMs,
        });
        return { kind: 'again', runAt: this.now() + 1000, queue: route.provider };
    }
  }

  private async reconcile(task: TaskRow, routes: RouteTarget[], attempt: AttemptRow, signal: AbortSignal, job: StepJob): Promise<JobOutcome> {
    const provider = this.deps.providers(attempt.provider, attempt.key_id);
    const now = this.now();
    const deadline = attempt.deadline_at ?? now + this.deps.timings(attempt.provider).reconcileWindowMs;
    if (attempt.state === 'submitting') {
      await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting'], { state: 'unknown', deadline_at: deadline, error_message: 'the submit was interrupted; asking the provider' });
    }
    // A callback may have told us the upstream id meanwhile.
    if (attempt.upstream_id) return this.adopt(attempt, attempt.upstream_id, provider);
    const outcome = provider ? await traceMediaCall(this.deps.tracer, 'reconcile', task, attempt, () => provider.reconcile(this.mediaJob(task, attempt, signal))) : ({ kind: 'absent' } as const);
    switch (outcome.kind) {
      case 'found':
        return this.adopt(attempt, outcome.upstreamId, provider);
      case 'absent':
        return this.attemptFailed(task, routes, attempt, { message: 'the provider never received the job', retryable: true }, ['submitting', 'unknown'], job);
      case 'unknowable':
      case 'failed':
        if (now >= deadline) return this.abandon(task, routes, attempt, 'the outcome of the submit stayed unknown', job);
        return { kind: 'again', runAt: Math.min(deadline, now + 10_000) };
    }
  }

  private async adopt(attempt: AttemptRow, upstreamId: string, provider: MediaProvider | undefined): Promise<JobOutcome> {
    await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting', 'unknown'], {
      state: 'accepted',
      upstream_id: upstreamId,
      accepted_at: this.now(),
      error_message: null,
      deadline_at: this.now() + this.deps.timings(attempt.provider).maxJobMs,
    });
    return { kind: 'again', runAt: this.now() + (provider?.defaultPollMs ?? 1000), queue: attempt.provider };
  }

  private async poll(task: TaskRow, routes: RouteTarget[], attempt: AttemptRow, signal: AbortSignal, job: StepJob): Promise<JobOutcome> {
    const provider = this.deps.providers(attempt.provider, attempt.key_id);
    if (!provider || !attempt.upstream_id) return this.abandon(task, routes, attempt, `provider ${attempt.provider} is no longer configured`, job);
    if (attempt.deadline_at !== null && this.now() >= attempt.deadline_at) {
      await provider.cancel?.(this.mediaJob(task, attempt, signal), attempt.upstream_id).catch(() => {});
      return this.abandon(task, routes, attempt, 'the provider took too long', job);
    }
    const upstreamId = attempt.upstream_id;
    const outcome = await traceMediaCall(this.deps.tracer, 'poll', task, attempt, () => provider.poll(this.mediaJob(task, attempt, signal), upstreamId));
    switch (outcome.kind) {
      case 'pending': {
        if (outcome.upstreamId !== undefined && outcome.upstreamId !== upstreamId) {
          await this.tasks.moveAttempt(this.direct, attempt.id, ['accepted'], { upstream_id: outcome.upstreamId });
        }
        await this.tasks.countPoll(this.direct, attempt.id);
        const backoff = Math.min(this.deps.timings(attempt.provider).maxPollIntervalMs, provider.defaultPollMs * 1.5 ** Math.min(attempt.polls, 20));
        return { kind: 'again', runAt: this.now() + (outcome.pollAfterMs ?? backoff), queue: attempt.provider };
      }
      case 'completed':
        this.#report(attempt, undefined);
        return this.complete(task, routes, attempt, outcome.result, job, signal);
      case 'failed': {
        this.#report(attempt, outcome.error);
        // A job stopped because the client cancelled the task (task-cancel.service.ts marks the attempt first): no failover.
        const cancelled = outcome.error.code === 'canceled' && (await this.tasks.findAttempt(this.direct, attempt.id))?.error_message === CANCEL_REQUESTED;
        const error = cancelled ? { message: CANCELLED_BY_CLIENT, retryable: false, code: 'canceled' as const } : outcome.error;
        return this.attemptFailed(task, routes, attempt, error, ['accepted'], job);
      }
    }
  }

  /** Tells the health board how a call of the attempt's key went (an error about the request itself says nothing). */
  #report(attempt: AttemptRow, error: ProviderError | undefined): void {
    if (!this.deps.keys || attempt.key_id === null) return;
    const failure = error === undefined ? undefined : mediaFailureOf(error);
    if (error === undefined || failure !== undefined) this.deps.keys.report({ provider: attempt.provider, model: attempt.upstream_model, keyId: attempt.key_id }, failure);
  }

  private async complete(task: TaskRow, routes: RouteTarget[], attempt: AttemptRow, result: UpstreamResult, job: StepJob, signal: AbortSignal): Promise<JobOutcome> {
    if (result.files.length === 0 && !result.output) {
      return this.attemptFailed(task, routes, attempt, { message: 'the provider finished without a result', retryable: true }, undefined, job);
    }
    // A polled job can be fetched again later; a result that came with the submit exists only here, so it waits as long as it takes.
    const refetchable = attempt.state === 'accepted';
    let stored: Awaited<ReturnType<ResultStore['store']>>;
    try {
      stored = await this.deps.results.store(task.id, attempt.callback_token, result, { patienceMs: refetchable ? STORAGE_PATIENCE_IN_STEP_MS : Number.POSITIVE_INFINITY, signal });
    } catch (error) {
      if (error instanceof ResultCopyError) return this.attemptFailed(task, routes, attempt, error.providerError, undefined, job);
      if (refetchable && unavailableDependency(error)?.dependency === 'storage') return this.waitForStorage(attempt);
      throw error;
    }
    const now = this.now();
    const expiresAt = (this.deps.calendarNow?.() ?? now) + this.deps.fileRetentionMs;
    const finished = await this.deps.uow.transaction(async (tx) => {
      const changes = {
        files_json: JSON.stringify(stored.files),
        output_json: stored.output ? JSON.stringify(stored.output) : null,
        finished_at: now,
        updated_at: now,
        expires_at: expiresAt,
      };
      const files = stored.files.map((f, position) => ({
        blob_key: f.blobKey,
        task_id: task.id,
        position,
        file_type: f.fileType,
        content_type: f.contentType,
        bytes: f.bytes,
        created_at: now,
        expires_at: expiresAt,
        deleted_at: null,
      }));
      // The job ends with the task, in the same commit (guarded by our lease), instead of a statement after it.
      const upstreamCostMicro = attemptUpstreamCost(task, routes, attempt);
      if (!(await this.tasks.finishTask(tx, { taskId: task.id, changes, attemptId: attempt.id, upstreamId: attempt.upstream_id, upstreamCostMicro, files, job: { id: job.id, owner: job.lease.owner } }))) return false;
      await this.deps.onTerminal(tx, { ...task, ...changes, status: 'finished' });
      return true;
    });
    if (!finished) {
      // Someone else ended the task first: this result is late. Keep the record, drop the copies.
      await this.tasks.recordLateOutcome(this.direct, attempt.id, 'succeeded', now);
      await this.deps.results.discard(stored.files);
      return { kind: 'done' };
    }
    this.deps.metrics.tasks.inc({ model: task.model, status: 'finished' });
    return { kind: 'done', settled: true };
  }

  /**
   * Our store is down while the provider's job has finished: not the provider's fault, so neither a
   * failover nor a refund. The attempt's deadline moves out of the way and the result is fetched
   * again once the store may be back.
   */
  private async waitForStorage(attempt: AttemptRow): Promise<JobOutcome> {
    const now = this.now();
    this.deps.logger.warn({ attemptId: attempt.id, taskId: attempt.task_id }, 'the file store is unavailable; the finished result waits for it');
    await this.tasks.moveAttempt(this.direct, attempt.id, ['accepted'], { deadline_at: Math.max(attempt.deadline_at ?? 0, now + STORAGE_OUTAGE_GRACE_MS) });
    return { kind: 'again', runAt: now + STORAGE_RETRY_STEP_MS, queue: attempt.provider };
  }

  private async attemptFailed(
    task: TaskRow,
    routes: RouteTarget[],
    attempt: AttemptRow,
    error: ProviderError,
    from: AttemptRow['state'][] = ['submitting'],
    job: StepJob,
  ): Promise<JobOutcome> {
    const changed = await this.tasks.moveAttempt(this.direct, attempt.id, from, {
      state: 'failed',
      error_message: error.message,
      error_retryable: error.retryable ? 1 : 0,
      ended_at: this.now(),
    });
    if (!changed) return { kind: 'again', runAt: this.now() };
    if (!error.retryable) return this.fail(task, error.message, job);
    const next = routes[attempt.route_index + 1];
    if (!next) return this.fail(task, error.message, job);
    return { kind: 'again', runAt: this.now(), queue: next.provider };
  }

  private async abandon(task: TaskRow, routes: RouteTarget[], attempt: AttemptRow, reason: string, job: StepJob): Promise<JobOutcome> {
    const changed = await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting', 'accepted', 'unknown'], { state: 'abandoned', error_message: reason, error_retryable: 1, ended_at: this.now() });
    if (!changed) return { kind: 'again', runAt: this.now() };
    const next = routes[attempt.route_index + 1];
    if (!next) return this.fail(task, reason, job);
    return { kind: 'again', runAt: this.now(), queue: next.provider };
  }

  private async fail(task: TaskRow, message: string, job: StepJob): Promise<JobOutcome> {
    // The job ends in the refund's transaction, guarded by this step's lease.
    const endJob = (tx: StoreTransaction) => job.lease.complete(tx).then(() => undefined);
    const note = message === CANCELLED_BY_CLIENT ? CANCELLED_BY_CLIENT : undefined;
    if (await failTask(this.deps, task, message, this.now(), this.deps.onTerminal, endJob, note)) {
      this.deps.metrics.tasks.inc({ model: task.model, status: 'failed' });
      this.deps.metrics.ledgerEntries.inc({ kind: 'generation_refund' });
      return { kind: 'done', settled: true };
    }
    return { kind: 'done' };
  }

  /**
   * An upstream's callback for one of our attempts, once its route has authenticated and parsed it. A
   * callback is a hint: for an open attempt it records the upstream id if we lacked it and wakes the
   * task, so the next step polls the truth; for an attempt we already left it records the late
   * outcome, which is then ignored (an unsigned one is checked with the upstream in the background).
   * `woken` when the task was woken, `ignored` otherwise.
   */
  async acceptCallback(attempt: AttemptRow, notice: CallbackNotice): Promise<'woken' | 'ignored'> {
    const task = await this.tasks.findTask(this.direct, attempt.task_id);
    const now = this.now();
    if (isOpenAttempt(attempt.state) && task && !isTerminal(task.status)) {
      if (notice.upstreamId && !attempt.upstream_id) {
        // Our submit went unanswered: the callback's job is adopted only if it is the one we sent.
        if (!(await this.ownsCallbackJob(task, attempt, notice.upstreamId))) return 'ignored';
        await this.tasks.moveAttempt(this.direct, attempt.id, ['submitting', 'unknown', 'accepted'], { upstream_id: notice.upstreamId });
      }
      const job = newJob('task', { taskId: attempt.task_id, provider: attempt.provider }, now);
      await this.deps.uow.transaction((tx) => this.deps.queue.enqueue(tx, job));
      await this.deps.queue.wake(job.queue);
      return 'woken';
    }
    const outcome = notice.outcome?.kind;
    const leftBehind = attempt.state === 'failed' || attempt.state === 'abandoned';
    if (leftBehind && (outcome === 'completed' || outcome === 'failed')) {
      await this.tasks.recordLateOutcome(this.direct, attempt.id, outcome === 'completed' ? 'succeeded' : 'failed', now);
    } else if (leftBehind) {
      // Asked after the callback is answered: the vendor wants a quick 2xx.
      setImmediate(() =>
        void this.observeLateOutcome(attempt.id).catch((error: unknown) => this.deps.logger.warn({ err: error, attemptId: attempt.id }, 'checking a late outcome failed')),
      );
    }
    return 'ignored';
  }

  /**
   * Whether the job a callback names is the one this attempt submitted, by the vendor's record of its
   * request (MediaProvider.ownsJob). A foreign job is recorded as an upstream anomaly and not adopted;
   * a record that cannot be read now is an error, so the vendor retries its callback (and until then
   * the attempt reconciles as if none had come).
   */
  private async ownsCallbackJob(task: TaskRow, attempt: AttemptRow, upstreamId: string): Promise<boolean> {
    const provider = this.deps.providers(attempt.provider, attempt.key_id);
    if (!provider?.ownsJob) return true;
    const ownership = await provider.ownsJob(this.mediaJob(task, attempt, AbortSignal.timeout(30_000)), upstreamId);
    if (ownership === 'ours') return true;
    if (ownership === 'unknown') {
      throw new AppError('service_unavailable', `${attempt.provider} could not say whether job ${upstreamId} is this attempt's; send the callback again.`, { retryAfter: 5 });
    }
    this.deps.logger.warn({ attemptId: attempt.id, provider: attempt.provider, upstreamId }, 'a callback named a job another request submitted; not adopted');
    this.deps.metrics.upstreamAnomalies.inc({ kind: 'foreign_job' });
    await this.deps.anomalies
      ?.record([
        {
          provider: attempt.provider,
          model: task.model,
          upstreamModel: attempt.upstream_model,
          protocol: 'media',
          reference: attempt.id,
          userId: task.user_id,
          field: 'upstreamId',
          kind: 'foreign_job',
          reported: upstreamId,
          billed: null,
        },
      ])
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'recording an upstream anomaly failed'));
    return false;
  }

  /**
   * A callback for an attempt we already left (failed or abandoned) that carries no trusted outcome:
   * ask the upstream once what became of it, and record the answer on the attempt. Nothing else
   * changes: the task has moved on.
   */
  private async observeLateOutcome(attemptId: string): Promise<void> {
    const attempt = await this.tasks.findAttempt(this.direct, attemptId);
    if (!attempt?.upstream_id || attempt.late_outcome || (attempt.state !== 'failed' && attempt.state !== 'abandoned')) return;
    const task = await this.tasks.findTask(this.direct, attempt.task_id);
    const provider = this.deps.providers(attempt.provider, attempt.key_id);
    if (!task || !provider) return;
    const outcome = await provider.poll(this.mediaJob(task, attempt, AbortSignal.timeout(30_000)), attempt.upstream_id);
    if (outcome.kind === 'completed') await this.tasks.recordLateOutcome(this.direct, attempt.id, 'succeeded', this.now());
    else if (outcome.kind === 'failed') await this.tasks.recordLateOutcome(this.direct, attempt.id, 'failed', this.now());
  }

  /** What the provider is told about an attempt (also what a client's cancel sends it). */
  mediaJob(task: TaskRow, attempt: AttemptRow, signal: AbortSignal): MediaJob {
    const input = JSON.parse(task.input_json) as ValidatedInput;
    const measured = JSON.parse(task.measured_json) as MeasuredMedia[];
    return {
      taskId: task.id,
      attemptId: attempt.id,
      model: task.model,
      upstreamModel: attempt.upstream_model,
      family: task.family,
      input,
      measured,
      outputSpec: this.deps.catalog.outputSpec(task.model, input, measured),
      callbackUrl: `${this.deps.callbackBaseUrl()}/api/v1/callbacks/media/${attempt.id}/${attempt.callback_token}`,
      parents: {},
      signal,
    };
  }
}
