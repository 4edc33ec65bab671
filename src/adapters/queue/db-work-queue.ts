import { sql } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import { NOOP_TRACER, type Tracer } from '../../ports/tracer.port.ts';
import type { ClaimedJob, JobFailureCount, LaneCaps, NewJob, TargetFailure, TargetStreak, WorkQueue } from '../../ports/work-queue.port.ts';
import type { DatabaseHandle } from '../db/open-database.ts';
import { completeJobIn } from '../db/repositories/jobs.repository.ts';
import { type Executor, executorOf } from '../db/schema.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import { claimFairly, type FairClaimRow } from './fair-claim.ts';
import { recordTargetFailure, recordTargetSuccess } from './job-targets.ts';

const WAKE_TOPIC = 'queue.wake';

/**
 * Releases the lease and makes the job due at `runAt`, inside the caller's transaction (a normal end
 * of the claim: the failure streak is over); false when the lease was lost.
 */
async function rescheduleJobIn(tx: Executor, owner: string, jobId: string, runAt: number): Promise<boolean> {
  const result = await tx
    .updateTable('jobs')
    .set({ run_at: runAt, lease_owner: null, lease_until: null, failures: 0, repeats: 0 })
    .where('id', '=', jobId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The work queue on the application database. PostgreSQL: claims use FOR UPDATE SKIP LOCKED so many
 * workers take different rows without waiting. SQLite: one writer at a time, so a plain
 * UPDATE … WHERE id IN (SELECT … LIMIT n) is already exclusive. Wake-ups travel on the event bus
 * (in-process in embedded mode, Redis pub/sub in scale-out); workers also sleep until the next due job,
 * so a lost signal only delays.
 */
export class DbWorkQueue implements WorkQueue {
  private readonly handle: DatabaseHandle;
  private readonly bus: EventBus;
  private readonly tracer: Tracer;

  constructor(handle: DatabaseHandle, bus: EventBus, tracer: Tracer = NOOP_TRACER) {
    this.handle = handle;
    this.bus = bus;
    this.tracer = tracer;
  }

  async enqueue(tx: StoreTransaction, job: NewJob): Promise<void> {
    await executorOf(tx)
      .insertInto('jobs')
      .values({
        id: newId('job'),
        kind: job.kind,
        ref_id: job.refId,
        queue: job.queue,
        run_at: job.runAt,
        lease_owner: null,
        lease_until: null,
        attempts: 0,
        created_at: Date.now(),
        failures: 0,
        repeats: 0,
        last_failure: null,
        // The enqueuing request's trace: the worker that runs the job continues it (an upsert keeps the first).
        trace_context: this.tracer.currentContext() ?? null,
        lane_tenant: job.lane?.tenant ?? null,
        lane_target: job.lane?.target ?? null,
      })
      .onConflict((oc) =>
        oc.columns(['kind', 'ref_id']).doUpdateSet({
          // An existing job keeps its place unless the new one is due earlier (SQLite min = PostgreSQL least).
          run_at: this.handle.dialect === 'postgres' ? sql<number>`least(jobs.run_at, excluded.run_at)` : sql<number>`min(jobs.run_at, excluded.run_at)`,
          queue: (eb) => eb.ref('excluded.queue'),
        }),
      )
      .execute();
  }

  async wake(queue: string): Promise<void> {
    // The bus never throws (its port says so); this guard keeps a post-commit wake harmless whatever bus is behind it.
    await this.bus.publish(WAKE_TOPIC, queue).catch(() => {});
  }

  wakeSignalsReliable(): boolean {
    return this.bus.reliable();
  }

  async onWake(handler: (queue: string) => void): Promise<() => Promise<void>> {
    return this.bus.subscribe(WAKE_TOPIC, handler);
  }

  async claim(owner: string, queue: string | string[], limit: number, now: number, leaseMs: number): Promise<ClaimedJob[]> {
    const queues = typeof queue === 'string' ? [queue] : queue;
    if (limit <= 0 || queues.length === 0) return [];
    const leaseUntil = now + leaseMs;
    const due = this.handle.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', 'in', queues)
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('run_at')
      .limit(limit);
    const rows = await this.handle.db
      .updateTable('jobs')
      .set({ lease_owner: owner, lease_until: leaseUntil, attempts: sql<number>`attempts + 1` })
      .where('id', 'in', this.handle.dialect === 'postgres' ? due.forUpdate().skipLocked() : due)
      .returning(['id', 'kind', 'ref_id', 'queue', 'run_at', 'attempts', 'lease_until', 'trace_context'])
      .execute();
    return rows.map((r) => claimed(r, leaseUntil));
  }

  async claimFair(owner: string, queue: string, limit: number, now: number, leaseMs: number, caps: LaneCaps): Promise<ClaimedJob[]> {
    if (limit <= 0) return [];
    const rows = await claimFairly(this.handle, owner, queue, limit, now, leaseMs, caps);
    return rows.map((r) => claimed(r, now + leaseMs));
  }

  targetSucceeded(queue: string, target: string): Promise<void> {
    return recordTargetSuccess(this.handle, queue, target);
  }

  targetFailed(queue: string, target: string, now: number, pauseMs: (streak: TargetStreak) => number): Promise<TargetFailure> {
    return recordTargetFailure(this.handle, queue, target, now, pauseMs);
  }

  async extend(owner: string, jobIds: string[], leaseUntil: number): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const held = await this.handle.db
      .updateTable('jobs')
      .set({ lease_until: leaseUntil })
      .where('lease_owner', '=', owner)
      .where('id', 'in', jobIds)
      .returning('id')
      .execute();
    const still = new Set(held.map((r) => r.id));
    return jobIds.filter((id) => !still.has(id));
  }

  async complete(owner: string, jobId: string): Promise<boolean> {
    return completeJobIn(this.handle.db, owner, jobId);
  }

  completeIn(tx: StoreTransaction, owner: string, jobId: string): Promise<boolean> {
    return completeJobIn(executorOf(tx), owner, jobId);
  }

  rescheduleIn(tx: StoreTransaction, owner: string, jobId: string, runAt: number): Promise<boolean> {
    return rescheduleJobIn(executorOf(tx), owner, jobId, runAt);
  }

  async reschedule(owner: string, jobId: string, runAt: number, queue?: string): Promise<boolean> {
    const result = await this.handle.db
      .updateTable('jobs')
      .set({ run_at: runAt, lease_owner: null, lease_until: null, failures: 0, repeats: 0, ...(queue ? { queue } : {}) })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async recordFailure(owner: string, jobId: string, fingerprint: string, fresh: boolean): Promise<JobFailureCount | undefined> {
    // Every right-hand side reads the row as it was (SQL), so `repeats` compares with the previous fingerprint.
    const row = await this.handle.db
      .updateTable('jobs')
      .set({
        failures: fresh ? 1 : sql<number>`failures + 1`,
        repeats: fresh ? 1 : sql<number>`CASE WHEN failures > 0 AND last_failure = ${fingerprint} THEN repeats + 1 ELSE 1 END`,
        last_failure: fingerprint,
      })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .returning(['failures', 'repeats'])
      .executeTakeFirst();
    return row ? { failures: Number(row.failures), repeats: Number(row.repeats) } : undefined;
  }

  async retryAfterFailure(owner: string, jobId: string, runAt: number): Promise<boolean> {
    const result = await this.handle.db.updateTable('jobs').set({ run_at: runAt, lease_owner: null, lease_until: null }).where('id', '=', jobId).where('lease_owner', '=', owner).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async nextDue(queues: string[], now: number): Promise<number | undefined> {
    if (queues.length === 0) return undefined;
    const row = await this.handle.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min<number>('run_at').as('next'))
      .where('queue', 'in', queues)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    const leased = await this.handle.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min<number>('lease_until').as('next'))
      .where('queue', 'in', queues)
      .where('lease_until', '>=', now)
      .executeTakeFirst();
    const candidates = [row?.next, leased?.next].filter((v): v is number => v !== null && v !== undefined).map(Number);
    return candidates.length ? Math.min(...candidates) : undefined;
  }

  async queues(): Promise<string[]> {
    const rows = await this.handle.db.selectFrom('jobs').select('queue').distinct().execute();
    return rows.map((r) => r.queue);
  }

  async depth(): Promise<Record<string, number>> {
    const rows = await this.handle.db
      .selectFrom('jobs')
      .select(['kind', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('kind')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
  }
}

/** A leased row as the port shows it (PostgreSQL may hand integers back as strings through raw SQL). */
function claimed(r: FairClaimRow, leaseUntil: number): ClaimedJob {
  return {
    id: r.id,
    kind: r.kind,
    refId: r.ref_id,
    queue: r.queue,
    runAt: Number(r.run_at),
    attempts: Number(r.attempts),
    leaseUntil: r.lease_until === null ? leaseUntil : Number(r.lease_until),
    traceContext: r.trace_context,
  };
}
