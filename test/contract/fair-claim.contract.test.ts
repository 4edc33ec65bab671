/**
 * The fair claim of a laned queue (issue 29, item 9) on both engines: round-robin over tenants, caps
 * per tenant and per target counted over every owner's leases, a paused target claimed not at all
 * and then one job at a time, and a success ending the pause.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { pino } from 'pino';
import type { ClaimedJob, LaneCaps, NewJob, TargetStreak } from '../../src/ports/work-queue.port.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';

/** Counts the fair claims a pool makes. */
class CountingQueue extends DbWorkQueue {
  fairClaims = 0;
  override claimFair(owner: string, queue: string, limit: number, now: number, leaseMs: number, caps: LaneCaps): Promise<ClaimedJob[]> {
    this.fairClaims++;
    return super.claimFair(owner, queue, limit, now, leaseMs, caps);
  }
}

const CAPS = { perTenant: 3, perTarget: 2 };

describeEachDatabase('fair claims of a laned queue', (t) => {
  const queueOf = () => new DbWorkQueue(t.handle, new MemoryEventBus());
  const add = (q: DbWorkQueue, jobs: NewJob[]) => t.handle.db.transaction().execute(async (tx) => {
    for (const job of jobs) await q.enqueue(tx, job);
  });
  const job = (queue: string, refId: string, runAt: number, tenant: string, target: string): NewJob => ({ kind: 'fair', refId: `${queue}-${refId}`, queue, runAt, lane: { tenant, target } });

  test('a backlog of one tenant does not fill the claim: tenants take turns, each within its caps', async () => {
    const q = queueOf();
    // Tenant a queued 20 jobs to one target before b and c queued theirs.
    const jobs = Array.from({ length: 20 }, (_, i) => job('f1', `a${i}`, i, 'a', 'https://dead.example'));
    jobs.push(job('f1', 'b0', 100, 'b', 'https://b.example'), job('f1', 'b1', 101, 'b', 'https://b.example'), job('f1', 'c0', 102, 'c', 'https://c.example'));
    // A job in no lane is claimed too, as a tenant of its own.
    jobs.push({ kind: 'fair', refId: 'f1-plain', queue: 'f1', runAt: 103 });
    await add(q, jobs);
    const first = await q.claimFair('w1', 'f1', 10, 1000, 60_000, CAPS);
    assert.deepEqual(first.map((j) => j.refId).sort(), ['f1-a0', 'f1-a1', 'f1-b0', 'f1-b1', 'f1-c0', 'f1-plain'], 'a is held to its target cap of 2');
    // Another owner: the caps count every owner's leases.
    assert.deepEqual((await q.claimFair('w2', 'f1', 10, 1000, 60_000, CAPS)).map((j) => j.refId), []);
    // One of a's jobs ends: one more of a's comes, the earliest.
    const done = first.find((j) => j.refId === 'f1-a0');
    assert.ok(done && (await q.complete('w1', done.id)));
    assert.deepEqual((await q.claimFair('w2', 'f1', 10, 1000, 60_000, CAPS)).map((j) => j.refId), ['f1-a2']);
  });

  test('a tenant is capped over its targets, and one dead target does not hold back its other targets', async () => {
    const q = queueOf();
    const jobs = Array.from({ length: 10 }, (_, i) => job('f2', `dead${i}`, i, 'a', 'https://dead.example'));
    for (let i = 0; i < 4; i++) jobs.push(job('f2', `live${i}`, 50 + i, 'a', `https://live${i}.example`));
    await add(q, jobs);
    const claimed = (await q.claimFair('w1', 'f2', 10, 1000, 60_000, CAPS)).map((j) => j.refId).sort();
    assert.equal(claimed.length, 3, 'the tenant cap');
    assert.deepEqual(claimed, ['f2-dead0', 'f2-dead1', 'f2-live0'], 'the dead target has its 2, the tenant\'s third slot goes to a live target');
  });

  test('a target that keeps failing is paused (none claimed), then probed one at a time; a success ends it', async () => {
    const q = queueOf();
    const target = 'https://flaky.example';
    await add(q, Array.from({ length: 5 }, (_, i) => job('f3', `j${i}`, i, `t${i}`, target)));
    const streaks: TargetStreak[] = [];
    const pause = (streak: TargetStreak) => {
      streaks.push(streak);
      return streak.failures >= 2 ? 5_000 : 0;
    };
    assert.deepEqual(await q.targetFailed('f3', target, 1000, pause), { failures: 1, pausedUntil: undefined });
    assert.deepEqual(await q.targetFailed('f3', target, 1500, pause), { failures: 2, pausedUntil: 6500 });
    assert.deepEqual(streaks, [{ failures: 1, failingForMs: 0 }, { failures: 2, failingForMs: 500 }], 'the streak is timed from its first failure');
    assert.equal((await q.claimFair('w1', 'f3', 10, 2000, 60_000, CAPS)).length, 0, 'paused: nothing of the target is claimed');
    // Another queue's target of the same name is not paused.
    await add(q, [job('f3-other', 'x', 0, 't', target)]);
    assert.equal((await q.claimFair('w1', 'f3-other', 10, 2000, 60_000, CAPS)).length, 1);

    const probe = await q.claimFair('w1', 'f3', 10, 6501, 60_000, CAPS);
    assert.deepEqual(probe.map((j) => j.refId), ['f3-j0'], 'after the pause: one probe, the earliest');
    assert.equal((await q.claimFair('w2', 'f3', 10, 6502, 60_000, CAPS)).length, 0, 'nothing more while the probe is in flight');
    // The probe failed: a longer pause, never a shorter one.
    const failed = await q.targetFailed('f3', target, 6600, (streak) => streak.failures * 10_000);
    assert.deepEqual(failed, { failures: 3, pausedUntil: 36_600 });
    await q.targetFailed('f3', target, 6550, () => 1_000);
    assert.equal((await q.claimFair('w2', 'f3', 10, 20_000, 60_000, CAPS)).length, 0, 'a late report of an older failure did not shorten the pause');
    const [held] = probe;
    assert.ok(held && (await q.reschedule('w1', held.id, 0)));

    // A success: the target is healthy, its cap is the normal one.
    await q.targetSucceeded('f3', target);
    assert.equal((await q.claimFair('w3', 'f3', 10, 20_000, 60_000, CAPS)).length, CAPS.perTarget);
    assert.equal((await t.handle.db.selectFrom('job_targets').selectAll().where('queue', '=', 'f3').execute()).length, 0, 'a healthy target keeps no row');
  });

  test('a pool whose laned queue has due jobs held back by a cap looks again now and then, not in a loop', async () => {
    const q = new CountingQueue(t.handle, new MemoryEventBus());
    const caps = { perTenant: 1, perTarget: 1 };
    await add(q, [job('f4', 'held', 0, 'a', 'https://t.example'), job('f4', 'waiting', 1, 'a', 'https://t.example')]);
    // Another process holds the tenant's one slot, so the due job waits for it.
    assert.equal((await q.claimFair('elsewhere', 'f4', 10, Date.now(), 60_000, caps)).length, 1);
    q.fairClaims = 0;
    const ran: string[] = [];
    const handler = async (claimed: ClaimedJob): Promise<{ kind: 'done' }> => {
      ran.push(claimed.refId);
      return { kind: 'done' };
    };
    const pool = new WorkerPool(q, { fair: handler }, {
      owner: 'pool',
      leaseMs: 60_000,
      concurrency: 4,
      queueConcurrency: () => 4,
      laneCaps: (queue) => (queue === 'f4' ? caps : undefined),
      queues: ['f4'],
      logger: pino({ level: 'silent' }),
    });
    await pool.start();
    await new Promise((r) => setTimeout(r, 1_000));
    await pool.stop();
    assert.equal(ran.includes('f4-waiting'), false, 'the capped job was not run');
    // About five in a second (a look every 200 ms), more when the machine is loaded and other wakes
    // (start, the bus, the idle poll) add theirs; a pool woken by its own due job at once makes hundreds.
    // 25 was met by 26 on a loaded CI run, so the bound sits between the two, not at the edge of the first.
    assert.ok(q.fairClaims <= 60, `${q.fairClaims} fair claims in a second`);
  });
});
