/**
 * The worker's combined task writes (tasks.repository.ts), on both stores: the first attempt with the
 * move to `processing`, and the finish that also records the attempt's success, the files and the end
 * of the job, all gated by the task's compare-and-set and the job's lease.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import {
  type AttemptRow,
  findTask,
  findTasksWithLatestAttempt,
  finishTask,
  insertFirstAttempt,
  insertTask,
  type TaskRow,
} from '../../src/adapters/db/repositories/tasks.repository.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { describeEachDatabase } from '../support/databases.ts';
import { attemptRow, taskRow } from '../support/task-rows.ts';

describeEachDatabase('task steps', (t) => {
  const now = Date.UTC(2026, 10, 22, 12);

  async function newTask(): Promise<TaskRow> {
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const task = taskRow(user.id, now);
    await insertTask(t.handle.db, task);
    return task;
  }

  const attemptOf = (task: TaskRow, attemptNo = 1): AttemptRow =>
    attemptRow(task, now, { attempt_no: attemptNo, route_index: attemptNo - 1, callback_token: `cb-${attemptNo}` });

  const success = (task: TaskRow, attempt: AttemptRow, job: { id: string; owner: string } | undefined) => ({
    taskId: task.id,
    changes: { files_json: '["f"]', output_json: null, finished_at: now + 5, updated_at: now + 5, expires_at: now + 1000 },
    attemptId: attempt.id,
    upstreamId: attempt.upstream_id,
    upstreamCostMicro: 777,
    files: [
      { blob_key: `blob-${task.id}`, task_id: task.id, position: 0, file_type: 'image', content_type: 'image/png', bytes: 10, created_at: now, expires_at: now + 1000, deleted_at: null },
    ],
    job,
  });

  async function claimedJob(refId: string, owner: string): Promise<{ id: string; owner: string }> {
    const queue = new DbWorkQueue(t.handle, new MemoryEventBus());
    await t.handle.db.transaction().execute((tx) => queue.enqueue(tx, { kind: 'media', refId, queue: `q-${refId}`, runAt: 0 }));
    const [job] = await queue.claim(owner, `q-${refId}`, 1, Date.now(), 60_000);
    assert.ok(job);
    return { id: job.id, owner };
  }

  test('the first attempt moves the task to processing; a second call on a started task only adds its attempt', async () => {
    const task = await newTask();
    await insertFirstAttempt(t.handle.db, attemptOf(task, 1), now + 1);
    const started = await findTask(t.handle.db, task.id);
    assert.equal(started?.status, 'processing');
    assert.equal(started?.started_at, now + 1);
    await insertFirstAttempt(t.handle.db, attemptOf(task, 2), now + 2);
    assert.equal((await findTask(t.handle.db, task.id))?.started_at, now + 1);
    const step = (await findTasksWithLatestAttempt(t.handle.db, [task.id, 'task_missing'])).get(task.id);
    assert.equal(step?.attempt?.attempt_no, 2);
  });

  test('finishing wins once: attempt succeeded, files recorded, job ended under its lease; a second finish changes nothing', async () => {
    const task = await newTask();
    const attempt = attemptOf(task);
    await insertFirstAttempt(t.handle.db, attempt, now);
    const job = await claimedJob(task.id, 'worker-a');
    assert.equal(await t.handle.db.transaction().execute((tx) => finishTask(tx, success(task, attempt, job))), true);
    assert.equal((await findTask(t.handle.db, task.id))?.status, 'finished');
    const attemptNow = await t.handle.db.selectFrom('task_attempts').select(['state', 'upstream_cost_micro']).where('id', '=', attempt.id).executeTakeFirstOrThrow();
    assert.equal(attemptNow.state, 'succeeded');
    assert.equal(Number(attemptNow.upstream_cost_micro), 777, 'the upstream cost is recorded on the attempt that succeeded');
    assert.equal((await t.handle.db.selectFrom('stored_files').select('blob_key').where('task_id', '=', task.id).execute()).length, 1);
    assert.equal((await t.handle.db.selectFrom('jobs').select('id').where('id', '=', job.id).execute()).length, 0);

    // Run again (a retried step): the task is terminal, so nothing is written.
    const again = { ...success(task, attempt, undefined), files: [{ ...success(task, attempt, undefined).files[0]!, blob_key: `other-${task.id}` }] };
    assert.equal(await t.handle.db.transaction().execute((tx) => finishTask(tx, again)), false);
    assert.equal((await t.handle.db.selectFrom('stored_files').select('blob_key').where('task_id', '=', task.id).execute()).length, 1);
  });

  test('a worker that lost its lease still finishes the task, but leaves the job to its new owner', async () => {
    const task = await newTask();
    const attempt = attemptOf(task);
    await insertFirstAttempt(t.handle.db, attempt, now);
    const job = await claimedJob(task.id, 'worker-new');
    assert.equal(await t.handle.db.transaction().execute((tx) => finishTask(tx, success(task, attempt, { id: job.id, owner: 'worker-old' }))), true);
    assert.equal((await findTask(t.handle.db, task.id))?.status, 'finished');
    const left = await t.handle.db.selectFrom('jobs').select('lease_owner').where('id', '=', job.id).executeTakeFirst();
    assert.equal(left?.lease_owner, 'worker-new');
  });
});
