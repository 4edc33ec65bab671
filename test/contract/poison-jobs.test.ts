/**
 * The poison-job rule (issue 17) in the worker pool, on SQLite and PostgreSQL: a handler that throws
 * the same way again and again is given up after its kind's bound, through its kind's give-up hook;
 * failures in different ways have their own bound; infrastructure faults, a lost lease and a normal
 * end of a claim do not count; a run past its time-out counts; a maintenance job comes back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import type { ClaimedJob } from '../../src/ports/work-queue.port.ts';
import { type JobKind, maintenanceJob } from '../../src/workers/job-binding.ts';
import type { JobFailure } from '../../src/ports/work-queue.port.ts';
import type { JobOutcome } from '../../src/ports/work-queue.port.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('poison jobs', (t) => {
  const queueOf = () => new DbWorkQueue(t.handle, new MemoryEventBus());

  /** Runs one job of kind `kind` in a pool until `until` holds; returns what the handler and the hook saw. */
  async function runUntil(kind: string, entry: Omit<JobKind, 'giveUp'> & { giveUp?: JobKind['giveUp'] }, until: (gaveUp: JobFailure[]) => boolean | Promise<boolean>): Promise<JobFailure[]> {
    const q = queueOf();
    const gaveUp: JobFailure[] = [];
    const giveUp = entry.giveUp ?? (async (_job: ClaimedJob, failure: JobFailure): Promise<JobOutcome> => {
      gaveUp.push(failure);
      return { kind: 'done' };
    });
    const wrapped: JobKind = {
      ...entry,
      giveUp: async (job, failure) => {
        if (entry.giveUp) gaveUp.push(failure);
        return giveUp(job, failure);
      },
    };
    await t.handle.db.transaction().execute((tx) => q.enqueue(tx, { kind, refId: 'r1', queue: kind, runAt: 0 }));
    const pool = new WorkerPool(q, { [kind]: wrapped }, { owner: `pool_${kind}`, leaseMs: 5000, concurrency: 2, queueConcurrency: () => 2, queues: [kind], logger: quiet, failureBackoffMs: 5 });
    await pool.start();
    try {
      const deadline = Date.now() + 15_000;
      while (!(await until(gaveUp))) {
        assert.ok(Date.now() < deadline, `timed out; gave up ${gaveUp.length} times`);
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await pool.stop();
    }
    return gaveUp;
  }

  const jobRow = (kind: string) => t.handle.db.selectFrom('jobs').selectAll().where('kind', '=', kind).executeTakeFirst();

  test('the same failure twice gives the job up once, through its hook, and removes it', async () => {
    let calls = 0;
    const gaveUp = await runUntil(
      'p_same',
      {
        poison: { sameWay: 2, anyWay: 5 },
        timeoutMs: 10_000,
        handler: async () => {
          calls += 1;
          throw new TypeError(`cannot read schema at step ${calls}`);
        },
      },
      async (g) => g.length > 0 && (await jobRow('p_same')) === undefined,
    );
    assert.equal(calls, 2, 'digits folded: step 1 and step 2 are the same failure');
    assert.equal(gaveUp.length, 1);
    assert.deepEqual([gaveUp[0]?.failures, gaveUp[0]?.repeats, gaveUp[0]?.fingerprint], [2, 2, 'TypeError: cannot read schema at step #']);
    assert.ok(gaveUp[0]?.error instanceof TypeError);
  });

  test('failures in different ways are given up at the any-way bound', async () => {
    let calls = 0;
    const gaveUp = await runUntil(
      'p_any',
      {
        poison: { sameWay: 2, anyWay: 4 },
        timeoutMs: 10_000,
        handler: async () => {
          calls += 1;
          throw new Error(calls % 2 ? 'odd failure' : 'even failure');
        },
      },
      (g) => g.length > 0,
    );
    assert.equal(calls, 4);
    assert.deepEqual([gaveUp[0]?.failures, gaveUp[0]?.repeats], [4, 1]);
  });

  test('infrastructure faults are retried without counting', async () => {
    let calls = 0;
    const gaveUp = await runUntil(
      'p_infra',
      {
        poison: { sameWay: 2, anyWay: 5 },
        timeoutMs: 10_000,
        handler: async () => {
          calls += 1;
          if (calls <= 3) throw Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
          if (calls === 4) throw new Error('wrapped', { cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) });
          throw new Error('poison');
        },
      },
      (g) => g.length > 0,
    );
    assert.equal(calls, 6, 'four faults of the infrastructure, then the poison twice');
    assert.deepEqual([gaveUp[0]?.failures, gaveUp[0]?.repeats], [2, 2]);
  });

  test('a normal end of a claim starts the streak over', async () => {
    let calls = 0;
    const gaveUp = await runUntil(
      'p_reset',
      {
        poison: { sameWay: 2, anyWay: 5 },
        timeoutMs: 10_000,
        handler: async (): Promise<JobOutcome> => {
          calls += 1;
          // fail, a normal run that goes back to the table, fail, a normal run held here, fail, fail
          if (calls === 2) return { kind: 'again', runAt: Date.now() + 2_000 };
          if (calls === 4) return { kind: 'again', runAt: Date.now() };
          throw new Error('the same failure');
        },
      },
      (g) => g.length > 0,
    );
    assert.equal(calls, 6);
    assert.deepEqual([gaveUp[0]?.failures, gaveUp[0]?.repeats], [2, 2]);
  });

  test('a run past its time-out is aborted and counts as a failure', async () => {
    let calls = 0;
    const gaveUp = await runUntil(
      'p_timeout',
      {
        poison: { sameWay: 2, anyWay: 5 },
        timeoutMs: 50,
        handler: (_job, signal) => {
          calls += 1;
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
        },
      },
      (g) => g.length > 0,
    );
    assert.equal(calls, 2);
    assert.equal(gaveUp[0]?.fingerprint, 'timed out after 50 ms');
  });

  test('a maintenance job that gives up is kept for its next round, its streak started over', async () => {
    let calls = 0;
    const kind = maintenanceJob(async () => {
      calls += 1;
      throw new Error('the sweep is broken');
    }, quiet);
    await runUntil('p_maint', { ...kind, giveUp: kind.giveUp }, (g) => g.length > 0);
    const row = await jobRow('p_maint');
    assert.ok(row, 'the job is still there');
    assert.equal(row.failures, 0);
    assert.ok(row.run_at > Date.now() + 60_000, 'the next round is minutes away');
    assert.equal(calls, 3);
  });

  test('a give-up hook that fails keeps the job and its streak: the next failure gives up again', async () => {
    let hooks = 0;
    await runUntil(
      'p_hookfail',
      {
        poison: { sameWay: 2, anyWay: 5 },
        timeoutMs: 10_000,
        handler: async () => {
          throw new Error('poison');
        },
        giveUp: async () => {
          hooks += 1;
          throw new Error('the database said no');
        },
      },
      (g) => g.length > 0,
    );
    const row = await jobRow('p_hookfail');
    assert.ok(row, 'the job is kept');
    assert.equal(hooks, 1);
    assert.deepEqual([row.failures, row.repeats, row.last_failure], [2, 2, 'Error: poison']);
    assert.ok(row.run_at >= Date.now() + 60_000, 'retried after the longest backoff');
  });

  test('recordFailure is guarded by the lease and counts the same way only after the same fingerprint', async () => {
    const q = queueOf();
    await t.handle.db.transaction().execute((tx) => q.enqueue(tx, { kind: 'p_rec', refId: 'x', queue: 'p_rec', runAt: 0 }));
    const [job] = await q.claim('w1', 'p_rec', 1, Date.now(), 60_000);
    assert.ok(job);
    assert.equal(await q.recordFailure('someone-else', job.id, 'a', false), undefined);
    assert.deepEqual(await q.recordFailure('w1', job.id, 'a', false), { failures: 1, repeats: 1 });
    assert.deepEqual(await q.recordFailure('w1', job.id, 'a', false), { failures: 2, repeats: 2 });
    assert.deepEqual(await q.recordFailure('w1', job.id, 'b', false), { failures: 3, repeats: 1 });
    assert.deepEqual(await q.recordFailure('w1', job.id, 'b', true), { failures: 1, repeats: 1 });
    assert.equal(await q.retryAfterFailure('w1', job.id, 0), true);
    assert.equal((await jobRow('p_rec'))?.failures, 1, 'a retry after a failure keeps the streak');
    const [again] = await q.claim('w1', 'p_rec', 1, Date.now(), 60_000);
    assert.ok(again);
    assert.equal(await q.reschedule('w1', again.id, 0), true);
    assert.deepEqual([(await jobRow('p_rec'))?.failures, (await jobRow('p_rec'))?.repeats], [0, 0], 'a normal end of the claim resets it');
  });
});
