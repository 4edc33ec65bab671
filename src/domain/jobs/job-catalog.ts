/**
 * The typed job catalog, in the manner of trigger.dev's worker catalog: every job kind, with its
 * payload (what one job of it is about, and so the row's reference and queue), its poison rule and its
 * time-out. Adding a kind is one entry here and its handler file; the composition root then has to
 * give that kind a handler (JobHandlers lists every kind), and every enqueue of it goes through
 * `newJob`, typed by the entry's payload.
 *
 * A handler that throws is retried with a backoff (the state guards of each kind make a re-run safe);
 * a handler that throws the same way again and again would otherwise be retried for ever, every few
 * minutes, and a poison that freezes the process would do so after every restart. So each kind names
 * its bound (consecutive failures the same way, or in any way, infrastructure faults not counted:
 * job-failures.ts), and its give-up hook ends the entity the job works on cleanly and durably, with
 * the entity's own compare-and-set moves: a run fails and releases its holds, a media task fails and
 * is refunded once, a webhook delivery is marked failed, a maintenance job logs and comes back at its
 * next round.
 */
import type { JobLane, NewJob } from './new-job.ts';

export interface PoisonRule {
  /** Give up after this many consecutive failures the same way. */
  sameWay: number;
  /** …or this many consecutive failures in any way. */
  anyWay: number;
}

/** The rule of a job whose entity holds money or a promise to a user: the "the same way twice". */
export const ENTITY_POISON: PoisonRule = { sameWay: 2, anyWay: 5 };
/** Media tasks and deliveries talk to the outside on every run: one more chance before giving up. */
export const OUTSIDE_POISON: PoisonRule = { sameWay: 3, anyWay: 6 };
/** Maintenance: its give-up only logs, so it may come sooner. */
export const MAINTENANCE_POISON: PoisonRule = { sameWay: 3, anyWay: 5 };
const MINUTE_MS = 60_000;

/** The queues with a fixed name; a media task waits in its provider's queue (one per provider, each with its own concurrency). */
export const JOB_QUEUES = { webhooks: 'webhooks', maintenance: 'maintenance', agent: 'agent' } as const;

/** A kind whose job works on one entity: its payload names the entity, and the job runs until the entity is done. */
export interface EntityJobSpec<Payload> {
  /**
   * The row a payload makes: the entity it works on (one job per kind and reference), the queue it
   * waits in, and its lane when that queue shares its slots fairly.
   */
  place(payload: Payload): { refId: string; queue: string; lane?: JobLane };
  poison: PoisonRule;
  /** One run of the handler past this is aborted (its signal) and counts as a failure. */
  timeoutMs: number;
}

/** A recurring kind: one job of it, made at start, which reschedules itself for its next round. */
export interface RecurringJobSpec {
  round: {
    refId: string;
    /** Its first run after a start when no row exists yet (an existing row keeps its earlier time). */
    firstRunAfterMs: number;
  };
}

/**
 * The lane target of a webhook delivery: the user's deliveries to one origin (scheme, host, port),
 * which are one server as far as slots and failures go. Per user, not per origin alone: a host
 * many users send to (an automation service) must not be capped, or paused, for all of them by the
 * traffic or the failures of one. A URL that does not parse is its own target (its delivery fails).
 */
export function webhookTarget(userId: string, url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = url.slice(0, 300);
  }
  return `${userId} ${origin}`;
}

function entity<Payload>(spec: EntityJobSpec<Payload>): EntityJobSpec<Payload> {
  return spec;
}

function recurring(refId: string, firstRunAfterMs: number): RecurringJobSpec {
  return { round: { refId, firstRunAfterMs } };
}

/**
 * Every job kind. The time-outs are far above a normal run of each (a model call of an agent step may
 * stream for many minutes; a task step may copy a large result); they end only what hangs. Recurring
 * kinds all follow the maintenance rule (maintenanceJob) on the maintenance queue.
 */
export const JOB_CATALOG = {
  /** One media task's steps (submit, poll, reconcile, store, fail over), in the queue of the provider it is on. */
  task: entity<{ taskId: string; provider: string }>({ place: (p) => ({ refId: p.taskId, queue: p.provider }), poison: OUTSIDE_POISON, timeoutMs: 15 * MINUTE_MS }),
  /** One agent run, stepped until it ends (AGENT.md). */
  agent_run: entity<{ runId: string }>({ place: (p) => ({ refId: p.runId, queue: JOB_QUEUES.agent }), poison: ENTITY_POISON, timeoutMs: 30 * MINUTE_MS }),
  /**
   * One webhook delivery, retried on its schedule; in the lane of its user and (that user's)
   * destination origin, so that the webhooks queue shares its slots fairly (the worker pool's lane caps).
   */
  webhook: entity<{ deliveryId: string; userId: string; url: string }>({
    place: (p) => ({ refId: p.deliveryId, queue: JOB_QUEUES.webhooks, lane: { tenant: p.userId, target: webhookTarget(p.userId, p.url) } }),
    poison: OUTSIDE_POISON,
    timeoutMs: 2 * MINUTE_MS,
  }),
  /** One storage copy (retain or import) into a user's storage. */
  storage_copy: entity<{ operationId: string }>({ place: (p) => ({ refId: p.operationId, queue: JOB_QUEUES.maintenance }), poison: OUTSIDE_POISON, timeoutMs: 30 * MINUTE_MS }),
  /** The end of the 3-day retention of result files. */
  sweep: recurring('media-retention', 0),
  /** Releasing the chat holds of processes that died. */
  chat_settle: recurring('chat-abandoned', 0),
  agent_capability_probe: recurring('routes', 0),
  agent_event_prune: recurring('events', MINUTE_MS),
  /** After one round of its minute (SPEC "Limits"). */
  agent_attachment_cleanup: recurring('attachments', MINUTE_MS),
  agent_idempotency_prune: recurring('idempotency', 60 * MINUTE_MS),
  /** After one round of its minute. */
  storage_billing: recurring('subscriptions', MINUTE_MS),
  /** Budget alerts' check: the accounts due, then the emails to send (issue 33, item 7). */
  budget_alerts: recurring('budget-alerts', 0),
};

export type Catalog = typeof JOB_CATALOG;
export type JobKindName = keyof Catalog;
/** The kinds whose jobs the code enqueues, each with its payload. */
export type EntityJobKind = { [K in JobKindName]: Catalog[K] extends EntityJobSpec<infer _> ? K : never }[JobKindName];
export type JobPayload<K extends EntityJobKind> = Catalog[K] extends EntityJobSpec<infer Payload> ? Payload : never;

/** The job to enqueue for `payload`, due at `runAt`: its reference and queue as its kind's entry says. */
export function newJob<K extends EntityJobKind>(kind: K, payload: JobPayload<K>, runAt: number): NewJob {
  const spec = JOB_CATALOG[kind] as EntityJobSpec<JobPayload<K>>;
  return { kind, ...spec.place(payload), runAt };
}

/** The one job of every recurring kind, for the workers to enqueue at start (idempotent: one row per kind and reference). */
export function recurringJobs(now: number): NewJob[] {
  return Object.entries(JOB_CATALOG).flatMap(([kind, spec]) =>
    'round' in spec ? [{ kind, refId: spec.round.refId, queue: JOB_QUEUES.maintenance, runAt: now + spec.round.firstRunAfterMs }] : [],
  );
}
