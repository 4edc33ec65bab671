/**
 * A worker's stop on SIGTERM (issue 22, item 2), on SQLite and PostgreSQL: a job still running when
 * the grace ends is aborted and handed back to the table before stop() resolves (the database may
 * close right after), due at once, so another worker takes it rather than waiting for its lease.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('worker stop', (t) => {
  test('a job aborted by stop is handed back before stop resolves, and another worker takes it', async () => {
    const kind = 'stop_handback';
    const q = new DbWorkQueue(t.handle, new MemoryEventBus());
    await t.handle.db.transaction().execute((tx) => q.enqueue(tx, { kind, refId: 'r1', queue: kind, runAt: 0 }));
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const options = { leaseMs: 60_000, concurrency: 1, queueConcurrency: () => 1, queues: [kind], logger: quiet };
    // Ignores nothing: on abort it takes a moment (a last upstream call, say) before it gives up.
    const first = new WorkerPool(
      q,
      {
        [kind]: async (_job, signal) => {
          started();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await new Promise((resolve) => setTimeout(resolve, 100));
          throw signal.reason;
        },
      },
      { ...options, owner: 'worker_first' },
    );
    await first.start();
    await running;
    await first.stop(0);
    const row = await t.handle.db.selectFrom('jobs').selectAll().where('kind', '=', kind).executeTakeFirstOrThrow();
    assert.equal(row.lease_owner, null, 'handed back, not left to its 60 s lease');
    assert.ok(row.run_at <= Date.now(), 'due at once');

    let ranOnSecond = 0;
    const second = new WorkerPool(
      q,
      {
        [kind]: async () => {
          ranOnSecond += 1;
          return { kind: 'done' };
        },
      },
      { ...options, owner: 'worker_second' },
    );
    await second.start();
    try {
      while ((await t.handle.db.selectFrom('jobs').select('id').where('kind', '=', kind).executeTakeFirst()) !== undefined) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await second.stop();
    }
    assert.equal(ranOnSecond, 1);
  });
});
