/**
 * The job catalog (src/domain/jobs/job-catalog.ts) bound to the handlers the composition root gives
 * it: each kind with its handler, poison rule, give-up hook and time-out, as the worker pool runs it.
 */
import type { Logger } from 'pino';
import { JOB_CATALOG, type JobKindName, MAINTENANCE_POISON, type PoisonRule, type RecurringJobSpec } from '../domain/jobs/job-catalog.ts';
import type { GiveUpHook, JobHandler } from '../ports/work-queue.port.ts';

type Catalog = typeof JOB_CATALOG;

export interface JobKind {
  handler: JobHandler;
  poison: PoisonRule;
  giveUp: GiveUpHook;
  /** One run of the handler past this is aborted (its signal) and counts as a failure. */
  timeoutMs: number;
}

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

/** What the composition root gives each kind: an entity kind's handler and give-up hook, a recurring kind's handler. */
export type JobHandlers = { [K in JobKindName]: Catalog[K] extends RecurringJobSpec ? JobHandler : { handler: JobHandler; giveUp: GiveUpHook } };

/** Every kind with its handler, poison rule, give-up hook and time-out, as the worker pool runs it. */
export function bindJobCatalog(handlers: JobHandlers, logger: Logger): Record<string, JobKind> {
  const bound: Record<string, JobKind> = {};
  for (const [kind, spec] of Object.entries(JOB_CATALOG) as Array<[JobKindName, Catalog[JobKindName]]>) {
    const given = handlers[kind];
    if ('round' in spec) bound[kind] = maintenanceJob(given as JobHandler, logger);
    else {
      const { handler, giveUp } = given as { handler: JobHandler; giveUp: GiveUpHook };
      bound[kind] = { handler, giveUp, poison: spec.poison, timeoutMs: spec.timeoutMs };
    }
  }
  return bound;
}
