import type { Logger } from 'pino';
import type { ClaimedJob, JobContext, JobHandler, JobOutcome, LaneCaps, WorkQueue } from '../ports/work-queue.port.ts';
import { NOOP_TRACER, type Tracer } from '../ports/tracer.port.ts';
import { defaultJobKind, type JobKind } from './job-binding.ts';
import { failureFingerprint, isInfrastructureFault } from './job-failures.ts';

export interface WorkerPoolOptions {
  owner: string;
  leaseMs: number;
  /** Jobs this process runs at once, over all queues. */
  concurrency: number;
  /** Jobs of one queue (a provider) this process runs at once. */
  queueConcurrency: (queue: string) => number;
  /**
   * Queues whose slots are shared fairly by lane (the webhooks queue: per user and per destination),
   * with their caps; each gets a claim of its own (WorkQueue.claimFair), so a backlog of one tenant
   * never fills the claim of the others.
   */
  laneCaps?: (queue: string) => LaneCaps | undefined;
  /** Queues to watch from the start; others are discovered from the table. */
  queues: string[];
  logger: Logger;
  /** A span per run of a job, in the trace of the request that enqueued it (off: the no-op tracer). */
  tracer?: Tracer;
  now?: () => number;
  /** A job asking to run again within this many ms waits here, keeping its lease and slot (default 1 s). */
  holdMs?: number;
  /** Longest sleep with nothing due (default 5 s): the fallback when a wake-up signal is lost. */
  maxIdleSleepMs?: number;
  /** First wait after a handler failed (default 1 s); it doubles with each failure, up to 5 minutes. */
  failureBackoffMs?: number;
}

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  /** Settles once the job is finished or handed back (its row written), never rejects. */
  ended: Promise<void>;
}

const MAX_IDLE_SLEEP_MS = 5_000;
/** The longest idle sleep while wake signals may be lost (Redis down): polling stands in for them. */
const UNSIGNALLED_IDLE_SLEEP_MS = 250;
const NEXT_DUE_INTERVAL_MS = 100;
/**
 * A laned queue whose claim came back short while jobs were due (tenants or targets at their caps,
 * paused targets) is looked at again after this long: its due jobs would otherwise wake the pump at
 * once, again and again. Completions here pump anyway; this catches slots freed in other processes
 * and pauses that ended.
 */
const CAPPED_RECHECK_MS = 200;
const HANDLER_ERROR_BACKOFF_MAX_MS = 5 * 60_000;

/** The abort reason when one run of a handler passed its kind's time-out. */
class JobTimeout extends Error {
  constructor(ms: number) {
    super(`the job ran longer than its time-out of ${ms} ms`);
    this.name = 'JobTimeout';
  }
}
/**
 * Short waits (a poll due in under a second) stay in the process: going back through the table costs a
 * reschedule, a share of a claim and a fresh read, several statements for a wait a timer does for free.
 * Longer waits give the slot back, so slow upstream jobs never tie up the process's concurrency.
 */
const DEFAULT_HOLD_MS = 1_000;
/** While jobs run, a freed slot is refilled after this long, so that slots freed together share a claim. */
const CLAIM_COALESCE_MS = 5;
/**
 * After aborting on stop: how long the aborted jobs get to write their hand-back. Bounded, so that a
 * handler that ignores its signal cannot hold the shutdown; such a job waits for its lease instead.
 */
const HAND_BACK_MS = 5_000;

/**
 * Claims due jobs and runs them with bounded concurrency per queue: wakes on signals and sleeps until
 * the next due job otherwise (no busy polling); extends the leases of running jobs; on stop, claims
 * nothing more and lets running jobs finish. A handler that throws is retried with a backoff, until
 * its kind's poison rule says to give up (job-catalog.ts).
 */
export class WorkerPool {
  private readonly queue: WorkQueue;
  private readonly kinds: Record<string, JobKind>;
  private readonly options: WorkerPoolOptions;
  private readonly running = new Map<string, Running>();
  private readonly perQueue = new Map<string, number>();
  /** Laned queues whose last claim came back short: their due jobs wait for a cap, not a time. */
  private readonly capped = new Set<string>();
  private readonly queues: Set<string>;
  private readonly now: () => number;
  private stopped = false;
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private nextDueCheckAt = 0;
  private leaseTimer: NodeJS.Timeout | undefined;
  private discoverTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private idleWaiters: Array<() => void> = [];
  /** Jobs waiting in the process between two runs; stopping hands them back to the table at once. */
  private readonly holdWaiters = new Set<() => void>();

  /** Each job kind with its poison rule, give-up hook and time-out; a bare handler gets defaultJobKind's. */
  constructor(queue: WorkQueue, kinds: Record<string, JobKind | JobHandler>, options: WorkerPoolOptions) {
    this.queue = queue;
    this.kinds = Object.fromEntries(Object.entries(kinds).map(([kind, entry]) => [kind, typeof entry === 'function' ? defaultJobKind(entry) : entry]));
    this.options = options;
    this.queues = new Set(options.queues);
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.queue.onWake((queue) => {
      this.queues.add(queue);
      this.schedulePump(0);
    });
    this.leaseTimer = setInterval(() => void this.extendLeases(), Math.max(250, Math.floor(this.options.leaseMs / 3)));
    this.discoverTimer = setInterval(() => void this.discoverQueues(), 10_000);
    await this.discoverQueues();
    this.schedulePump(0);
  }

  /**
   * Stops claiming; resolves when running jobs have finished, or `graceMs` passed and the aborted
   * ones are handed back to the table (due now, so another worker claims them at once rather than
   * after their lease): the caller may close the database after this resolves.
   */
  async stop(graceMs = 20_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.discoverTimer) clearInterval(this.discoverTimer);
    await this.unsubscribe?.();
    for (const interrupt of [...this.holdWaiters]) interrupt();
    if (this.running.size > 0) {
      const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([idle, timeout]);
      const aborted = [...this.running.values()];
      for (const r of aborted) r.controller.abort(new Error('worker shutting down'));
      if (aborted.length > 0) {
        const bound = new Promise<void>((resolve) => setTimeout(resolve, HAND_BACK_MS).unref());
        await Promise.race([Promise.all(aborted.map((r) => r.ended)), bound]);
      }
    }
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }

  get activeJobs(): number {
    return this.running.size;
  }

  /** Keeps the earliest pending pump: a later sleep never cancels an earlier wake-up. */
  private schedulePump(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.pump();
    }, Math.max(0, delayMs));
  }

  private async pump(): Promise<void> {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        // One claim over every queue with room (a query per queue cost more than the jobs themselves).
        const room = new Map<string, number>();
        let total = 0;
        const overall = this.options.concurrency - this.running.size;
        for (const queue of this.queues) {
          const free = Math.min(overall, this.options.queueConcurrency(queue) - (this.perQueue.get(queue) ?? 0));
          if (free > 0) {
            room.set(queue, free);
            total += free;
          }
        }
        const limit = Math.min(total, overall);
        if (limit <= 0) break;
        const jobs = await this.claim(room, limit);
        for (const job of jobs) {
          const left = room.get(job.queue) ?? 0;
          if (left > 0 && this.running.size < this.options.concurrency) {
            room.set(job.queue, left - 1);
            this.run(job);
          } else {
            // Over this queue's limit: hand it back untouched (rare: only when one queue fills the claim).
            await this.queue.reschedule(this.options.owner, job.id, job.runAt).catch(() => {});
          }
        }
      } while (this.pumpAgain && !this.stopped);
      // The next due time is looked up at most every NEXT_DUE_INTERVAL_MS while jobs run: their
      // completions pump anyway, and a job due later than that waits at most that long.
      let sleep = NEXT_DUE_INTERVAL_MS;
      if (this.running.size === 0 || this.now() >= this.nextDueCheckAt) {
        this.nextDueCheckAt = this.now() + NEXT_DUE_INTERVAL_MS;
        const next = await this.nextDue();
        const idleSleep = this.options.maxIdleSleepMs ?? MAX_IDLE_SLEEP_MS;
        const maxSleep = this.queue.wakeSignalsReliable() ? idleSleep : Math.min(idleSleep, UNSIGNALLED_IDLE_SLEEP_MS);
        sleep = next === undefined ? maxSleep : Math.min(maxSleep, next - this.now());
      }
      this.schedulePump(this.pumpAgain ? 0 : sleep);
    } catch (error) {
      this.options.logger.error({ err: error }, 'claiming jobs failed');
      this.schedulePump(1000);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * One claim over the plain queues with room, and one fair claim per laned queue with room; asks
   * for another round when a claim came back full (more may be due). A laned queue that came back
   * short is marked capped until its next claim (see CAPPED_RECHECK_MS).
   */
  private async claim(room: Map<string, number>, limit: number): Promise<ClaimedJob[]> {
    const owner = this.options.owner;
    const now = this.now();
    const plain: string[] = [];
    let plainRoom = 0;
    const jobs: ClaimedJob[] = [];
    for (const [queue, free] of room) {
      const caps = this.options.laneCaps?.(queue);
      if (!caps) {
        plain.push(queue);
        plainRoom += free;
        continue;
      }
      const asked = Math.min(free, limit - jobs.length);
      if (asked <= 0) continue;
      const got = await this.queue.claimFair(owner, queue, asked, now, this.options.leaseMs, caps);
      if (got.length === asked) this.pumpAgain = true;
      if (got.length < asked) this.capped.add(queue);
      else this.capped.delete(queue);
      jobs.push(...got);
    }
    const asked = Math.min(plainRoom, limit - jobs.length);
    if (plain.length > 0 && asked > 0) {
      const got = await this.queue.claim(owner, plain, asked, now, this.options.leaseMs);
      if (got.length === asked) this.pumpAgain = true;
      jobs.push(...got);
    }
    return jobs;
  }

  /**
   * The next due time to sleep until: the plain queues' earliest job, and for a capped laned queue
   * its earliest job but not sooner than CAPPED_RECHECK_MS (its due jobs wait for a cap, not a time).
   */
  private async nextDue(): Promise<number | undefined> {
    const now = this.now();
    const capped = [...this.capped].filter((q) => this.queues.has(q));
    const others = [...this.queues].filter((q) => !this.capped.has(q));
    const next = await this.queue.nextDue(others, now);
    if (capped.length === 0) return next;
    const cappedNext = await this.queue.nextDue(capped, now);
    const recheck = cappedNext === undefined ? undefined : Math.max(cappedNext, now + CAPPED_RECHECK_MS);
    const candidates = [next, recheck].filter((v): v is number => v !== undefined);
    return candidates.length > 0 ? Math.min(...candidates) : undefined;
  }

  private run(job: ClaimedJob): void {
    const controller = new AbortController();
    this.perQueue.set(job.queue, (this.perQueue.get(job.queue) ?? 0) + 1);
    const ended = this.execute(job, controller.signal)
      .catch((error: unknown) => this.options.logger.error({ err: error, job: { kind: job.kind, refId: job.refId } }, 'running a job failed outside its handler'))
      .finally(() => {
        this.running.delete(job.id);
        this.perQueue.set(job.queue, (this.perQueue.get(job.queue) ?? 1) - 1);
        if (this.running.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        this.schedulePump(this.running.size === 0 ? 0 : CLAIM_COALESCE_MS);
      });
    this.running.set(job.id, { job, controller, ended });
  }

  private async execute(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const kind = this.kinds[job.kind];
    const owner = this.options.owner;
    const context: JobContext = {
      owner,
      complete: (tx) => this.queue.completeIn(tx, owner, job.id),
      reschedule: (tx, runAt) => this.queue.rescheduleIn(tx, owner, job.id, runAt),
    };
    let ranNormally = false;
    let timedOut = false;
    const tracer = this.options.tracer ?? NOOP_TRACER;
    try {
      if (!kind) throw new Error(`no handler for job kind ${job.kind}`);
      for (;;) {
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(new JobTimeout(kind.timeoutMs)), kind.timeoutMs);
        let outcome: JobOutcome;
        const span = tracer.startSpan(`job ${job.kind}`, { 'switchboard.job.kind': job.kind, 'switchboard.job.ref': job.refId, 'switchboard.job.attempt': job.attempts }, { parent: job.traceContext ?? null });
        try {
          outcome = await tracer.withSpan(span, () => kind.handler(job, AbortSignal.any([signal, timeout.signal]), context));
        } catch (error) {
          span.recordError(error);
          throw error;
        } finally {
          span.end();
          clearTimeout(timer);
          timedOut = timeout.signal.aborted;
        }
        if (await this.settle(job, outcome, signal)) return;
        ranNormally = true;
      }
    } catch (error) {
      await this.failed(job, kind, error, signal, { ranNormally, timedOut });
    }
  }

  /** Applies an outcome; false when the job stays here to run again now (a short wait held in the process). */
  private async settle(job: ClaimedJob, outcome: JobOutcome, signal: AbortSignal): Promise<boolean> {
    const owner = this.options.owner;
    if (outcome.kind === 'done') {
      if (!outcome.settled) await this.queue.complete(owner, job.id);
      return true;
    }
    // A short wait in the same queue is held here (lease and slot kept; the lease timer extends it).
    const wait = outcome.runAt - this.now();
    const sameQueue = outcome.queue === undefined || outcome.queue === job.queue;
    if (sameQueue && wait <= (this.options.holdMs ?? DEFAULT_HOLD_MS) && !this.stopped && !signal.aborted) {
      if (await this.hold(wait, signal)) return false;
      if (signal.aborted) return true; // the lease is gone (or a hard stop): the job is someone else's now
    }
    await this.queue.reschedule(owner, job.id, outcome.runAt, outcome.queue);
    if (outcome.queue && outcome.queue !== job.queue) this.queues.add(outcome.queue);
    return true;
  }

  /**
   * An unexpected failure: the job is kept and tried again after a backoff (the handler's own state
   * guards make that safe), unless its kind's poison rule says it has failed too often, the same way
   * or in any way; then the kind's give-up hook ends its entity. A lost lease or a stop is nobody's
   * failure, and an infrastructure fault says nothing about the job: neither counts.
   */
  private async failed(job: ClaimedJob, kind: JobKind | undefined, error: unknown, signal: AbortSignal, run: { ranNormally: boolean; timedOut: boolean }): Promise<void> {
    const owner = this.options.owner;
    const logger = this.options.logger;
    const fields = { kind: job.kind, refId: job.refId, attempts: job.attempts };
    if (signal.aborted && !run.timedOut) {
      // Stopping hard hands the job back at once; after a lost lease this changes nothing.
      logger.warn({ err: error, job: fields }, 'job interrupted (lease lost or stopping)');
      await this.queue.retryAfterFailure(owner, job.id, this.now()).catch(() => {});
      return;
    }
    if (!kind || (!run.timedOut && isInfrastructureFault(error))) {
      const backoff = Math.min(HANDLER_ERROR_BACKOFF_MAX_MS, (this.options.failureBackoffMs ?? 1000) * 2 ** Math.min(job.attempts, 12));
      logger.error({ err: error, job: fields }, 'job failed; retrying later');
      await this.queue.retryAfterFailure(owner, job.id, this.now() + backoff).catch(() => {});
      return;
    }
    try {
      const fingerprint = run.timedOut ? `timed out after ${kind.timeoutMs} ms` : failureFingerprint(error);
      const count = await this.queue.recordFailure(owner, job.id, fingerprint, run.ranNormally);
      if (!count) return; // the lease is gone: the job is someone else's now
      if (count.repeats < kind.poison.sameWay && count.failures < kind.poison.anyWay) {
        const backoff = Math.min(HANDLER_ERROR_BACKOFF_MAX_MS, (this.options.failureBackoffMs ?? 1000) * 2 ** (count.failures - 1));
        logger.error({ err: error, job: { ...fields, failures: count.failures, repeats: count.repeats } }, 'job failed; retrying later');
        await this.queue.retryAfterFailure(owner, job.id, this.now() + backoff);
        return;
      }
      logger.error({ err: error, job: { ...fields, failures: count.failures, repeats: count.repeats } }, 'job failed too often; giving it up');
      const outcome = await kind.giveUp(job, { ...count, error, fingerprint });
      if (outcome.kind === 'done') {
        if (!outcome.settled) await this.queue.complete(owner, job.id);
      } else {
        await this.queue.reschedule(owner, job.id, outcome.runAt, outcome.queue);
      }
    } catch (giveUpError) {
      // Recording the failure or giving up failed (the database, most likely): the streak is kept, and
      // the next failure gives up again once the job runs after the backoff.
      logger.error({ err: giveUpError, job: fields }, 'handling a failed job failed; retrying later');
      await this.queue.retryAfterFailure(owner, job.id, this.now() + HANDLER_ERROR_BACKOFF_MAX_MS).catch(() => {});
    }
  }

  /** Waits `ms` unless the pool stops or the lease is lost first; true when the wait ran out normally. */
  private hold(ms: number, signal: AbortSignal): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ranOut: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', interrupt);
        this.holdWaiters.delete(interrupt);
        resolve(ranOut);
      };
      const interrupt = () => done(false);
      const timer = setTimeout(() => done(true), ms);
      signal.addEventListener('abort', interrupt, { once: true });
      this.holdWaiters.add(interrupt);
    });
  }

  private async extendLeases(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      const lost = await this.queue.extend(this.options.owner, [...this.running.keys()], this.now() + this.options.leaseMs);
      for (const id of lost) this.running.get(id)?.controller.abort(new Error('lease lost'));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'extending leases failed');
    }
  }

  private async discoverQueues(): Promise<void> {
    try {
      for (const q of await this.queue.queues()) this.queues.add(q);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'listing queues failed');
    }
  }
}
