/**
 * The typed job catalog: for each job kind, its handler, when it is poisoned, how it gives up, and how
 * long one run of the handler may take. A handler that throws is retried with a backoff (the state
 * guards of each kind make a re-run safe); a handler that throws the same way again and again would
 * otherwise be retried for ever, every few minutes, and a poison that freezes the process would do so
 * after every restart. So each kind names its bound (consecutive failures the same way, or in any
 * way, infrastructure faults not counted: job-failures.ts), and its give-up hook ends the entity the
 * job works on cleanly and durably, with the entity's own compare-and-set moves: a run fails and
 * releases its holds, a media task fails and is refunded once, a webhook delivery is marked failed,
 * a maintenance job logs and comes back at its next round.
 */
import type { Logger } from 'pino';
import type { ClaimedJob, JobFailureCount, JobHandler, JobOutcome } from '../ports/work-queue.port.ts';

export interface JobFailure extends JobFailureCount {
  error: unknown;
  fingerprint: string;
}

/**
 * Ends what the job works on, once the job is poisoned; idempotent (a give-up interrupted by a crash
 * runs again). Its outcome is the job's: `done` removes it, `again` keeps it (its streak starts over).
 */
export type GiveUpHook = (job: ClaimedJob, failure: JobFailure) => Promise<JobOutcome>;

export interface PoisonRule {
  /** Give up after this many consecutive failures the same way. */
  sameWay: number;
  /** …or this many consecutive failures in any way. */
  anyWay: number;
}

export interface JobKind {
  handler: JobHandler;
  poison: PoisonRule;
  giveUp: GiveUpHook;
  /** One run of the handler past this is aborted (its signal) and counts as a failure. */
  timeoutMs: number;
}

export type JobCatalog = Record<string, JobKind>;

/** The rule of a job whose entity holds money or a promise to a user: the "the same way twice". */
export const ENTITY_POISON: PoisonRule = { sameWay: 2, anyWay: 5 };
/** Media tasks and deliveries talk to the outside on every run: one more chance before giving up. */
export const OUTSIDE_POISON: PoisonRule = { sameWay: 3, anyWay: 6 };
/** Maintenance: its give-up only logs, so it may come sooner. */
export const MAINTENANCE_POISON: PoisonRule = { sameWay: 3, anyWay: 5 };
const MAINTENANCE_TIMEOUT_MS = 10 * 60_000;
/** A maintenance job that gave up comes back this much later, its streak started over. */
const MAINTENANCE_GIVE_UP_PAUSE_MS = 5 * 60_000;

/** A periodic job: nothing to end, so its give-up logs loudly and schedules the next round. */
export function maintenanceJob(handler: JobHandler, logger: Logger, now: () => number = Date.now): JobKind {
  return {
    handler,
    poison: MAINTENANCE_POISON,
    timeoutMs: MAINTENANCE_TIMEOUT_MS,
    giveUp: async (job, failure) => {
      logger.error({ err: failure.error, job: { kind: job.kind, refId: job.refId }, failures: failure.failures }, 'maintenance job keeps failing; skipping this round');
      return { kind: 'again', runAt: now() + MAINTENANCE_GIVE_UP_PAUSE_MS };
    },
  };
}

/** A bare handler (tests, tools): the maintenance rule without its log line. */
export function defaultJobKind(handler: JobHandler): JobKind {
  return {
    handler,
    poison: MAINTENANCE_POISON,
    timeoutMs: MAINTENANCE_TIMEOUT_MS,
    giveUp: async () => ({ kind: 'again', runAt: Date.now() + MAINTENANCE_GIVE_UP_PAUSE_MS }),
  };
}
