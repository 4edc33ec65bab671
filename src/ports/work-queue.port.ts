import type { JobRef, NewJob } from '../domain/jobs/new-job.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type { JobLane, JobRef, NewJob } from '../domain/jobs/new-job.ts';

/** How a claim of a laned queue shares its slots (WorkQueue.claimFair). */
export interface LaneCaps {
  /** Jobs of one tenant in flight at once, over every process. */
  perTenant: number;
  /** Jobs of one target in flight at once, over every process (one while a paused target is probed). */
  perTarget: number;
}

/** A lane target's streak of failures since its last success, this one included. */
export interface TargetStreak {
  failures: number;
  /** From the first failure of the streak to this one. */
  failingForMs: number;
}

/** The breaker of a lane target, as the queue records it. */
export interface TargetFailure {
  /** Consecutive failures since the last success, this one included. */
  failures: number;
  /** No job of the target is claimed before this; undefined: not paused. */
  pausedUntil: number | undefined;
}

export interface ClaimedJob extends JobRef {
  id: string;
  queue: string;
  runAt: number;
  /** How many times it has been claimed, this time included (a value above 1 means a retry or a reclaim). */
  attempts: number;
  leaseUntil: number;
  /** The trace of the request that enqueued it (a W3C traceparent), when tracing was on then. */
  traceContext?: string | null;
}

/** A job's streak of unexpected failures (the poison-job rule, src/domain/jobs/job-catalog.ts). */
export interface JobFailureCount {
  /** Consecutive unexpected failures, this one included. */
  failures: number;
  /** How many of them, counted back from this one, failed the same way (same fingerprint). */
  repeats: number;
}

/**
 * The durable work queue (decision 4): jobs are rows in the same database as the money, enqueued in the
 * caller's transaction, claimed with a lease. A crashed worker's job is claimed again once its lease
 * runs out. Every change by a worker is guarded by its lease (owner and id), so a worker that lost its
 * lease cannot complete or move a job that someone else now holds.
 */
export interface WorkQueue {
  /** Adds the job in the caller's transaction; an existing job for (kind, refId) is moved to the earlier runAt. */
  enqueue(tx: StoreTransaction, job: NewJob): Promise<void>;
  /**
   * Tells workers (in every process) that work is due now; call after the enqueuing transaction
   * commits. A hint only: it never throws, and a lost signal delays a job by a poll at most.
   */
  wake(queue: string): Promise<void>;
  /** False while wake signals may be lost: idle workers then poll often instead of sleeping long. */
  wakeSignalsReliable(): boolean;
  /** Leases up to `limit` due jobs of one queue or of several, the earliest due first. */
  claim(owner: string, queue: string | string[], limit: number, now: number, leaseMs: number): Promise<ClaimedJob[]>;
  /**
   * Leases up to `limit` due jobs of one laned queue, fairly: round-robin over tenants (each tenant's
   * earliest due job first), never more than `caps` in flight per tenant or per target (counting
   * every process's leases), nothing of a paused target, and one job at a time of a target whose
   * pause has ended (a probe). Jobs without a lane are claimed as one more tenant without caps.
   */
  claimFair(owner: string, queue: string, limit: number, now: number, leaseMs: number, caps: LaneCaps): Promise<ClaimedJob[]>;
  /** A job of `target` succeeded: its failures are forgotten and its pause, if any, ends. */
  targetSucceeded(queue: string, target: string): Promise<void>;
  /**
   * A job of `target` failed in a way that says the target is unwell: its failures are counted and
   * it is paused for `pauseMs(streak)` from `now` (0: not paused; a pause is only ever lengthened).
   */
  targetFailed(queue: string, target: string, now: number, pauseMs: (streak: TargetStreak) => number): Promise<TargetFailure>;
  /** Extends the leases of jobs this owner still holds; returns the ids it no longer holds. */
  extend(owner: string, jobIds: string[], leaseUntil: number): Promise<string[]>;
  /** Removes a finished job; false when the lease was lost. */
  complete(owner: string, jobId: string): Promise<boolean>;
  /** `complete` inside the caller's transaction (a handler's final write, through its JobContext). */
  completeIn(tx: StoreTransaction, owner: string, jobId: string): Promise<boolean>;
  /** Releases the lease and runs the job again at `runAt` (optionally in another queue); a normal end of the claim, so its failure streak is over. */
  reschedule(owner: string, jobId: string, runAt: number, queue?: string): Promise<boolean>;
  /** `reschedule` in the same queue, inside the caller's transaction (through a handler's JobContext). */
  rescheduleIn(tx: StoreTransaction, owner: string, jobId: string, runAt: number): Promise<boolean>;
  /**
   * Counts an unexpected failure of a job this owner holds, keeping the lease (the pool then backs off
   * or gives up). `fresh`: the streak starts again at this one (the handler ran normally earlier in
   * this claim). Undefined when the lease was lost.
   */
  recordFailure(owner: string, jobId: string, fingerprint: string, fresh: boolean): Promise<JobFailureCount | undefined>;
  /** Releases the lease and runs the job again at `runAt`, its failure streak kept (a backoff after a failure). */
  retryAfterFailure(owner: string, jobId: string, runAt: number): Promise<boolean>;
  /** Earliest run time of a job that is not leased (or whose lease has expired), for sleeping until then. */
  nextDue(queues: string[], now: number): Promise<number | undefined>;
  /** Queues that have any job, so workers can learn queue names they were not told about. */
  queues(): Promise<string[]>;
  /** Subscribes to wake signals; the handler gets the queue name. */
  onWake(handler: (queue: string) => void): Promise<() => Promise<void>>;
  depth(): Promise<Record<string, number>>;
}

/**
 * `done` with `settled`: the handler already ended the job in its own final transaction (through its
 * JobContext), so the pool does not spend a statement on it.
 */
export type JobOutcome = { kind: 'done'; settled?: boolean } | { kind: 'again'; runAt: number; queue?: string };

/**
 * The lease a handler holds, bound to its job: the handler's final transaction may end the job in the
 * same commit as its own writes (then it returns `done` with `settled`), guarded by the lease like
 * every move of the pool, so a worker that lost the lease changes nothing.
 */
export interface JobContext {
  /** The lease owner, for a statement that folds the job's removal into its own (guarded the same way). */
  owner: string;
  /** Removes the job inside `tx`; false when the lease was lost. */
  complete(tx: StoreTransaction): Promise<boolean>;
  /** Releases the lease and makes the job due at `runAt` in its queue, inside `tx`; false when the lease was lost. */
  reschedule(tx: StoreTransaction, runAt: number): Promise<boolean>;
}

/** Runs one job; `signal` aborts when this worker loses the lease or shuts down hard. */
export type JobHandler = (job: ClaimedJob, signal: AbortSignal, context: JobContext) => Promise<JobOutcome>;

export interface JobFailure extends JobFailureCount {
  error: unknown;
  fingerprint: string;
}

/**
 * Ends what the job works on, once the job is poisoned; idempotent (a give-up interrupted by a crash
 * runs again). Its outcome is the job's: `done` removes it, `again` keeps it (its streak starts over).
 */
export type GiveUpHook = (job: ClaimedJob, failure: JobFailure) => Promise<JobOutcome>;
