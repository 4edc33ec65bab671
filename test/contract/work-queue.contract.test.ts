import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import type { ClaimedJob, JobContext, JobOutcome } from '../../src/ports/work-queue.port.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('work queue', (t) => {
  const queueOf = () => new DbWorkQueue(t.handle, new MemoryEventBus());

  test('enqueue is idempotent per (kind, refId) and keeps the earlier run time', async () => {
    const q = queueOf();
    const db = t.handle.db;
    await db.transaction().execute((tx) => q.enqueue(tx, { kind: 'k1', refId: 'a', queue: 'p', runAt: 2000 }));
    await db.transaction().execute((tx) => q.enqueue(tx, { kind: 'k1', refId: 'a', queue: 'p', runAt: 5000 }));
    await db.transaction().execute((tx) => q.enqueue(tx, { kind: 'k1', refId: 'a', queue: 'p', runAt: 1000 }));
    const rows = await db.selectFrom('jobs').selectAll().where('kind', '=', 'k1').execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.run_at, 1000);
  });

  test('an enqueue rolled back with its transaction leaves no job', async () => {
    const q = queueOf();
    await assert.rejects(
      t.handle.db.transaction().execute(async (tx) => {
        await q.enqueue(tx, { kind: 'k2', refId: 'x', queue: 'p', runAt: 0 });
        throw new Error('rollback');
      }),
    );
    assert.equal((await t.handle.db.selectFrom('jobs').selectAll().where('kind', '=', 'k2').execute()).length, 0);
  });

  test('claims only due, unleased jobs of the queue, up to the limit', async () => {
    const q = queueOf();
    await t.handle.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 5; i++) await q.enqueue(tx, { kind: 'k3', refId: `j${i}`, queue: 'q3', runAt: 100 + i });
      await q.enqueue(tx, { kind: 'k3', refId: 'future', queue: 'q3', runAt: 10_000 });
      await q.enqueue(tx, { kind: 'k3', refId: 'other', queue: 'elsewhere', runAt: 0 });
    });
    const first = await q.claim('w1', 'q3', 3, 1000, 5000);
    assert.deepEqual(first.map((j) => j.refId).sort(), ['j0', 'j1', 'j2'], 'the earliest due first');
    assert.ok(first.every((j) => j.attempts === 1 && j.leaseUntil === 6000));
    const second = await q.claim('w2', 'q3', 10, 1000, 5000);
    assert.deepEqual(second.map((j) => j.refId).sort(), ['j3', 'j4']);
    assert.equal((await q.claim('w3', 'q3', 10, 1000, 5000)).length, 0, 'leased and future jobs are not claimed');
  });

  test('a crashed owner’s jobs are reclaimed when the lease runs out, and the old owner can no longer touch them', async () => {
    const q = queueOf();
    await t.handle.db.transaction().execute((tx) => q.enqueue(tx, { kind: 'k4', refId: 'crash', queue: 'q4', runAt: 0 }));
    const [job] = await q.claim('dead', 'q4', 1, 1000, 5000);
    assert.ok(job);
    assert.equal((await q.claim('alive', 'q4', 1, 5999, 5000)).length, 0);
    const [again] = await q.claim('alive', 'q4', 1, 6001, 5000);
    assert.equal(again?.id, job.id);
    assert.equal(again?.attempts, 2);
    assert.equal(await q.complete('dead', job.id), false);
    assert.equal(await q.reschedule('dead', job.id, 0), false);
    assert.deepEqual(await q.extend('dead', [job.id], 99_999), [job.id]);
    assert.deepEqual(await q.extend('alive', [job.id], 99_999), []);
    assert.equal(await q.complete('alive', job.id), true);
  });

  test('concurrent claimers never take the same job', async () => {
    const q = queueOf();
    await t.handle.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 200; i++) await q.enqueue(tx, { kind: 'k5', refId: `c${i}`, queue: 'q5', runAt: 0 });
    });
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => q.claim(`w${i}`, 'q5', 30, 1000, 60_000)));
    const ids = claims.flat().map((j) => j.refId);
    assert.equal(ids.length, 200);
    assert.equal(new Set(ids).size, 200);
  });

  test('a worker pool runs every job once, respects the queue limit, and reschedules', async () => {
    const q = queueOf();
    await t.handle.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 30; i++) await q.enqueue(tx, { kind: 'k6', refId: `p${i}`, queue: 'q6', runAt: 0 });
    });
    const seen = new Map<string, number>();
    let active = 0;
    let peak = 0;
    const handler = async (job: ClaimedJob) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      const runs = (seen.get(job.refId) ?? 0) + 1;
      seen.set(job.refId, runs);
      // Every job asks to run once more, 20 ms later, then finishes.
      return runs === 1 ? { kind: 'again' as const, runAt: Date.now() + 20 } : { kind: 'done' as const };
    };
    const pool = new WorkerPool(q, { k6: handler }, { owner: 'pool', leaseMs: 5000, concurrency: 10, queueConcurrency: () => 4, queues: ['q6'], logger: quiet });
    await pool.start();
    const deadline = Date.now() + 10_000;
    while ((await t.handle.db.selectFrom('jobs').select('id').where('kind', '=', 'k6').execute()).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await pool.stop();
    assert.equal(seen.size, 30);
    assert.ok([...seen.values()].every((n) => n === 2));
    assert.ok(peak <= 4, `peak concurrency ${peak} exceeds the queue limit`);
  });

  test('a short wait stays in the process with its lease; a long one goes back to the table; stopping hands a held job back', async () => {
    // One log of what happened, in order: runs of the handler and reschedules through the table.
    const log: string[] = [];
    const refOf = new Map<string, string>();
    class CountingQueue extends DbWorkQueue {
      override async reschedule(owner: string, jobId: string, runAt: number, queue?: string): Promise<boolean> {
        log.push(`reschedule ${refOf.get(jobId) ?? jobId}`);
        return super.reschedule(owner, jobId, runAt, queue);
      }
    }
    const q = new CountingQueue(t.handle, new MemoryEventBus());
    await t.handle.db.transaction().execute(async (tx) => {
      await q.enqueue(tx, { kind: 'k8', refId: 'short-then-long', queue: 'q8', runAt: 0 });
      await q.enqueue(tx, { kind: 'k8', refId: 'held-at-stop', queue: 'q8', runAt: 0 });
    });
    const runTimes: number[] = [];
    const handler = async (job: ClaimedJob) => {
      refOf.set(job.id, job.refId);
      log.push(`run ${job.refId}`);
      // Held until the pool stops (a 30 s wait would go back to the table, 0.9 s stays here).
      if (job.refId === 'held-at-stop') return { kind: 'again' as const, runAt: Date.now() + 900 };
      runTimes.push(Date.now());
      // 40 ms: held here; then 60 s: handed back to the table.
      return { kind: 'again' as const, runAt: Date.now() + (runTimes.length === 1 ? 40 : 60_000) };
    };
    const pool = new WorkerPool(q, { k8: handler }, { owner: 'holder', leaseMs: 5000, concurrency: 4, queueConcurrency: () => 4, queues: ['q8'], logger: quiet });
    await pool.start();
    try {
      const deadline = Date.now() + 10_000;
      while (!log.includes('reschedule short-then-long') || !log.includes('run held-at-stop')) {
        assert.ok(Date.now() < deadline, `not done: ${log.join(', ')}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const mine = log.filter((line) => line.endsWith('short-then-long'));
      assert.deepEqual(mine, ['run short-then-long', 'run short-then-long', 'reschedule short-then-long'], log.join(', '));
      const [first, second] = runTimes;
      assert.ok(first !== undefined && second !== undefined && second - first >= 35, 'the short wait was waited out in the process');
      // The held job is still leased by this pool and was never sent back while held.
      assert.ok(!log.includes('reschedule held-at-stop'), log.join(', '));
      const row = await t.handle.db.selectFrom('jobs').select('lease_owner').where('ref_id', '=', 'held-at-stop').executeTakeFirstOrThrow();
      assert.equal(row.lease_owner, 'holder');
    } finally {
      await pool.stop();
    }
    // Stopping interrupted the held wait and handed the job back once, without running it again.
    assert.deepEqual(
      log.filter((line) => line.endsWith('held-at-stop')),
      ['run held-at-stop', 'reschedule held-at-stop'],
      log.join(', '),
    );
  });

  test('in the caller’s transaction, guarded by the lease: completeIn and rescheduleIn', async () => {
    const q = queueOf();
    const db = t.handle.db;
    await db.transaction().execute(async (tx) => {
      for (const ref of ['done', 'later', 'rolled-back']) await q.enqueue(tx, { kind: 'k9', refId: ref, queue: 'q9', runAt: 0 });
    });
    const claimed = await q.claim('holder', 'q9', 3, 1000, 60_000);
    const idOf = (ref: string) => claimed.find((j) => j.refId === ref)?.id ?? assert.fail(`no job ${ref}`);
    const row = (ref: string) => db.selectFrom('jobs').selectAll().where('kind', '=', 'k9').where('ref_id', '=', ref).executeTakeFirst();
    assert.equal(await db.transaction().execute((tx) => q.completeIn(tx, 'someone-else', idOf('done'))), false, 'another owner removes nothing');
    assert.equal(await db.transaction().execute((tx) => q.completeIn(tx, 'holder', idOf('done'))), true);
    assert.equal(await row('done'), undefined);
    assert.equal(await db.transaction().execute((tx) => q.rescheduleIn(tx, 'someone-else', idOf('later'), 5000)), false);
    assert.equal(await db.transaction().execute((tx) => q.rescheduleIn(tx, 'holder', idOf('later'), 5000)), true);
    assert.deepEqual(await row('later').then((r) => [r?.run_at, r?.lease_owner, r?.queue]), [5000, null, 'q9']);
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        assert.equal(await q.completeIn(tx, 'holder', idOf('rolled-back')), true);
        throw new Error('rollback');
      }),
    );
    assert.equal((await row('rolled-back'))?.lease_owner, 'holder', 'a rolled-back end leaves the job leased as it was');
  });

  test('a pool hands each handler its lease, bound to the job: the handler ends its job in its own transaction', async () => {
    const q = queueOf();
    const db = t.handle.db;
    await db.transaction().execute(async (tx) => {
      for (const ref of ['complete', 'reschedule']) await q.enqueue(tx, { kind: 'k10', refId: ref, queue: 'q10', runAt: 0 });
    });
    const ended = new Map<string, boolean>();
    const handler = async (job: ClaimedJob, _signal: AbortSignal, lease: JobContext): Promise<JobOutcome> => {
      const moved = await db.transaction().execute((tx) => (job.refId === 'complete' ? lease.complete(tx) : lease.reschedule(tx, Date.now() + 3_600_000)));
      ended.set(job.refId, moved);
      return { kind: 'done', settled: true };
    };
    const pool = new WorkerPool(q, { k10: handler }, { owner: 'leaser', leaseMs: 5000, concurrency: 2, queueConcurrency: () => 2, queues: ['q10'], logger: quiet });
    await pool.start();
    const deadline = Date.now() + 10_000;
    while (ended.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await pool.stop();
    assert.deepEqual(Object.fromEntries(ended), { complete: true, reschedule: true });
    const rows = await db.selectFrom('jobs').select(['ref_id', 'lease_owner', 'run_at']).where('kind', '=', 'k10').execute();
    assert.deepEqual(rows.map((r) => [r.ref_id, r.lease_owner]), [['reschedule', null]], 'one removed, the other due again later and unleased');
    assert.ok((rows[0]?.run_at ?? 0) > Date.now() + 3_000_000);
  });

  test('a wake-up starts a sleeping pool at once', async () => {
    const q = queueOf();
    let ran = 0;
    const countRun = async () => {
      ran += 1;
      return { kind: 'done' as const };
    };
    // The pool's own poll is an hour away: only the wake-up can start the job within the wait below.
    const pool = new WorkerPool(q, { k7: countRun }, {
      owner: 'sleepy',
      leaseMs: 5000,
      concurrency: 2,
      queueConcurrency: () => 2,
      queues: [],
      logger: quiet,
      maxIdleSleepMs: 3_600_000,
    });
    await pool.start();
    await new Promise((r) => setTimeout(r, 50));
    await t.handle.db.transaction().execute((tx) => q.enqueue(tx, { kind: 'k7', refId: 'now', queue: 'q7', runAt: Date.now() }));
    await q.wake('q7');
    const deadline = Date.now() + 20_000;
    while (ran === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    await pool.stop();
    assert.equal(ran, 1, 'woken: the job ran before the hour-long idle sleep ended');
  });
});
