/**
 * The task store (src/ports/task-store.port.ts) and the webhook store (src/ports/webhook-store.port.ts)
 * on both engines: every compare-and-set moves once and a second move from the wrong state changes
 * nothing; the move into `failed` refunds exactly once; attempts come back in the order they were
 * made; a delivery's attempt is claimed once; a rotation of the signing secret is a compare-and-set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kyselyLedgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import { findUserById } from '../../src/adapters/db/repositories/users.repository.ts';
import { kyselyTaskPorts } from '../../src/adapters/db/stores/task-store.ts';
import { kyselyWebhookPorts } from '../../src/adapters/db/stores/webhook-store.ts';
import { newId } from '../../src/domain/ids.ts';
import type { TaskRow } from '../../src/ports/task-store.port.ts';
import type { WebhookDeliveryRow } from '../../src/ports/webhook-store.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { failTask } from '../../src/services/generation/task-transitions.ts';
import { describeEachDatabase } from '../support/databases.ts';
import { attemptRow, taskRow } from '../support/task-rows.ts';

describeEachDatabase('task store', (t) => {
  const now = Date.UTC(2026, 11, 2, 12);
  const ports = () => kyselyTaskPorts(t.handle.db);

  async function storedTask(changes: Partial<TaskRow>, balanceMicro = 0) {
    const user = await createUser(t.handle.db, { balanceMicro });
    const task = taskRow(user.id, now, changes);
    await ports().tasks.insertTask(ports().uow.direct, task);
    return { user, task };
  }

  test('a move from a status that does not allow it changes nothing', async () => {
    const { tasks, uow } = ports();
    const { task } = await storedTask({ status: 'processing', started_at: now });
    assert.equal(await tasks.moveTask(uow.direct, task.id, 'finished', { finished_at: now + 1, updated_at: now + 1 }), true);
    // finished → processing is not a move the table allows; finished → failed neither.
    assert.equal(await tasks.moveTask(uow.direct, task.id, 'processing', { updated_at: now + 2 }), false);
    assert.equal(await tasks.moveTask(uow.direct, task.id, 'failed', { error_message: 'late', updated_at: now + 2 }), false);
    const after = await tasks.findTask(uow.direct, task.id);
    assert.equal(after?.status, 'finished');
    assert.equal(after?.updated_at, now + 1);
    assert.equal(after?.error_message, null);
  });

  test('a caller\'s `from` narrows the move: from a status it does not name, nothing changes', async () => {
    const { tasks, uow } = ports();
    const { task } = await storedTask({ status: 'processing', started_at: now });
    assert.equal(await tasks.moveTask(uow.direct, task.id, 'failed', { updated_at: now + 1 }, ['not_started']), false);
    assert.equal((await tasks.findTask(uow.direct, task.id))?.status, 'processing');
  });

  test('the move into failed refunds exactly once, however often it is raced', async () => {
    const p = ports();
    const { user, task } = await storedTask({ status: 'processing', started_at: now, cost_micro: 7_000 }, 10_000);
    let hooks = 0;
    const onTerminal = async () => {
      hooks++;
    };
    const results = await Promise.all([1, 2, 3].map((i) => failTask(p, task, `failed ${i}`, now + i, onTerminal)));
    assert.equal(results.filter(Boolean).length, 1, 'one winner');
    assert.equal(await failTask(p, task, 'again', now + 9, onTerminal), false);
    assert.equal(hooks, 1, 'the terminal hook ran for the winner only');
    assert.equal((await findUserById(t.handle.db, user.id))?.balance_micro, 17_000, 'refunded once');
    const refund = await kyselyLedgerBook.find(p.uow.direct, 'generation_refund', task.id);
    assert.equal(refund?.amount_micro, 7_000);
    const after = await p.tasks.findTask(p.uow.direct, task.id);
    assert.equal(after?.status, 'failed');
    assert.equal(after?.refunded_micro, 7_000);
  });

  test('a failed move rolls back with the rest of its transaction: no refund without the move', async () => {
    const p = ports();
    const { user, task } = await storedTask({ status: 'processing', started_at: now, cost_micro: 5_000 }, 0);
    await assert.rejects(failTask(p, task, 'boom', now, async () => {}, async () => Promise.reject(new Error('after the move'))));
    assert.equal((await p.tasks.findTask(p.uow.direct, task.id))?.status, 'processing');
    assert.equal((await findUserById(t.handle.db, user.id))?.balance_micro, 0);
    assert.equal(await kyselyLedgerBook.find(p.uow.direct, 'generation_refund', task.id), undefined);
  });

  test('an attempt recorded for a task that ended meanwhile (a cancel) says so: nothing may be sent', async () => {
    const { tasks, uow } = ports();
    const open = await storedTask({});
    const first = attemptRow(open.task, now, { id: newId('att', now), state: 'submitting', upstream_id: null });
    assert.equal(await tasks.recordFirstAttempt(uow.direct, first, now), true, 'a task not started is open');
    const next = attemptRow(open.task, now + 1, { id: newId('att', now + 1), attempt_no: 2, route_index: 1, state: 'submitting', upstream_id: null });
    assert.equal(await tasks.recordAttempt(uow.direct, next), true, 'a processing task is open');

    const cancelled = await storedTask({ status: 'failed', finished_at: now });
    const late = attemptRow(cancelled.task, now + 2, { id: newId('att', now + 2), state: 'submitting', upstream_id: null });
    assert.equal(await tasks.recordFirstAttempt(uow.direct, late, now + 2), false);
    assert.equal((await tasks.findTask(uow.direct, cancelled.task.id))?.status, 'failed', 'an ended task stays ended');
    const later = attemptRow(cancelled.task, now + 3, { id: newId('att', now + 3), attempt_no: 2, route_index: 1, state: 'submitting', upstream_id: null });
    assert.equal(await tasks.recordAttempt(uow.direct, later), false);
  });

  test('attempts are recorded in order; the latest is the one a step reads', async () => {
    const { tasks, uow } = ports();
    const { task } = await storedTask({});
    const first = attemptRow(task, now, { id: newId('att', now), state: 'submitting', upstream_id: null });
    await tasks.recordFirstAttempt(uow.direct, first, now);
    assert.equal((await tasks.findTask(uow.direct, task.id))?.status, 'processing', 'the first attempt starts the task');
    assert.equal(await tasks.moveAttempt(uow.direct, first.id, ['submitting'], { state: 'failed', ended_at: now + 1 }), true);
    const second = attemptRow(task, now + 2, { id: newId('att', now + 2), attempt_no: 2, route_index: 1, state: 'submitting', upstream_id: null });
    await tasks.recordAttempt(uow.direct, second);
    const third = attemptRow(task, now + 3, { id: newId('att', now + 3), attempt_no: 3, route_index: 2, state: 'submitting', upstream_id: null });
    await tasks.recordAttempt(uow.direct, third);
    assert.deepEqual(
      (await tasks.listAttempts(uow.direct, task.id)).map((a) => [a.attempt_no, a.state]),
      [
        [1, 'failed'],
        [2, 'submitting'],
        [3, 'submitting'],
      ],
    );
    const read = await tasks.findTasksWithLatestAttempt(uow.direct, [task.id, 'task_missing']);
    assert.equal(read.get(task.id)?.attempt?.id, third.id);
    assert.equal(read.has('task_missing'), false);
  });

  test('an attempt moves by compare-and-set: a second move from the state it left changes nothing', async () => {
    const { tasks, uow } = ports();
    const { task } = await storedTask({ status: 'processing', started_at: now });
    const attempt = attemptRow(task, now, { state: 'submitting', upstream_id: null });
    await tasks.recordAttempt(uow.direct, attempt);
    assert.equal(await tasks.moveAttempt(uow.direct, attempt.id, ['submitting'], { state: 'accepted', upstream_id: 'up-9' }), true);
    assert.equal(await tasks.moveAttempt(uow.direct, attempt.id, ['submitting'], { state: 'failed', error_message: 'late' }), false);
    const after = await tasks.findAttempt(uow.direct, attempt.id);
    assert.equal(after?.state, 'accepted');
    assert.equal(after?.error_message, null);
    await tasks.recordLateOutcome(uow.direct, attempt.id, 'succeeded', now + 1);
    await tasks.recordLateOutcome(uow.direct, attempt.id, 'failed', now + 2);
    assert.equal((await tasks.findAttempt(uow.direct, attempt.id))?.late_outcome, 'succeeded', 'a late outcome is recorded once');
  });

  test('finishing wins once: the loser writes no attempt success and no file', async () => {
    const { tasks, uow } = ports();
    const { task } = await storedTask({ status: 'processing', started_at: now });
    const attempt = attemptRow(task, now);
    await tasks.recordAttempt(uow.direct, attempt);
    const file = (key: string) => ({ blob_key: key, task_id: task.id, position: 0, file_type: 'image', content_type: 'image/png', bytes: 10, created_at: now, expires_at: now + 1000, deleted_at: null });
    const success = (key: string) => ({
      taskId: task.id,
      changes: { files_json: JSON.stringify([{ blobKey: key }]), output_json: null, finished_at: now + 5, updated_at: now + 5, expires_at: now + 1000 },
      attemptId: attempt.id,
      upstreamId: 'up-1',
      upstreamCostMicro: null,
      files: [file(key)],
      job: undefined,
    });
    assert.equal(await uow.transaction((tx) => tasks.finishTask(tx, success(`blob_${task.id}_a`))), true);
    assert.equal(await uow.transaction((tx) => tasks.finishTask(tx, success(`blob_${task.id}_b`))), false);
    assert.equal((await tasks.findAttempt(uow.direct, attempt.id))?.state, 'succeeded');
    const expired = (await tasks.findExpiredFiles(uow.direct, now + 1000, 100)).filter((f) => f.task_id === task.id);
    assert.deepEqual(
      expired.map((f) => f.blob_key),
      [`blob_${task.id}_a`],
    );
    await tasks.markFileDeleted(uow.direct, `blob_${task.id}_a`, now + 1001);
    assert.equal((await tasks.findExpiredFiles(uow.direct, now + 2000, 100)).filter((f) => f.task_id === task.id).length, 0, 'a deleted file is not found again');
    assert.ok((await tasks.findTasksToExpire(uow.direct, now + 1000, 500)).some((d) => d.id === task.id));
    assert.ok(!(await tasks.findTasksToExpire(uow.direct, now + 999, 500)).some((d) => d.id === task.id), 'not before its files expire');
  });

  test('a second task with one Idempotency-Key is refused, and recognised as such', async () => {
    const { tasks, uow } = ports();
    const { user } = await storedTask({});
    const first = taskRow(user.id, now, { idempotency_key: 'key-1', request_hash: 'h' });
    await tasks.insertTask(uow.direct, first);
    const error = await tasks.insertTask(uow.direct, taskRow(user.id, now + 1, { idempotency_key: 'key-1', request_hash: 'h' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error !== undefined, 'the second insert fails');
    assert.equal(tasks.isDuplicateTask(error), true);
    assert.equal(tasks.isDuplicateTask(new Error('something else')), false);
    assert.equal((await tasks.findTaskByIdempotencyKey(uow.direct, user.id, 'key-1'))?.id, first.id);
  });
});

describeEachDatabase('webhook store', (t) => {
  const now = Date.UTC(2026, 11, 2, 12);
  const ports = () => kyselyWebhookPorts(t.handle.db);

  function delivery(userId: string, taskId: string, eventType = 'task.finished'): WebhookDeliveryRow {
    const id = newId('whd', now);
    return {
      id, user_id: userId, task_id: taskId, message_id: id, destination_id: null, event_type: eventType, url: 'https://example.com/hook', payload_json: '{}',
      status: 'pending', attempts: 0, next_attempt_at: now, last_status_code: null, last_error: null, created_at: now, delivered_at: null,
    };
  }

  const attempt = (deliveryId: string, attemptNo: number) => ({ id: newId('wha', now), delivery_id: deliveryId, attempt_no: attemptNo, started_at: now, duration_ms: 0, status_code: null, error: 'in flight' });

  test('one delivery per (task, event type)', async () => {
    const { webhooks, uow } = ports();
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const taskId = newId('task', now);
    assert.equal(await webhooks.insertDelivery(uow.direct, delivery(user.id, taskId)), true);
    assert.equal(await webhooks.insertDelivery(uow.direct, delivery(user.id, taskId)), false);
    assert.equal(await webhooks.insertDelivery(uow.direct, delivery(user.id, taskId, 'task.expired')), true);
    assert.equal((await webhooks.listDeliveries(uow.direct, user.id, { taskId, limit: 10 })).length, 2);
  });

  test('a delivery\'s attempt is claimed once; its result is written only at that attempt', async () => {
    const { webhooks, uow } = ports();
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const row = delivery(user.id, newId('task', now));
    await webhooks.insertDelivery(uow.direct, row);
    const first = attempt(row.id, 1);
    assert.equal(await uow.transaction((tx) => webhooks.claimAttempt(tx, row.id, 0, now + 15_000, first)), true);
    assert.equal(await uow.transaction((tx) => webhooks.claimAttempt(tx, row.id, 0, now + 15_000, attempt(row.id, 1))), false, 'a second worker does not send attempt 1 again');
    assert.deepEqual(
      (await webhooks.listAttempts(uow.direct, [row.id])).map((a) => a.id),
      [first.id],
    );
    // A result for another attempt number is not written.
    await webhooks.endDelivery(uow.direct, row.id, 2, { status: 'delivered', delivered_at: now + 1 });
    assert.equal((await webhooks.findDelivery(uow.direct, row.id))?.status, 'pending');
    await webhooks.endAttempt(uow.direct, first.id, { duration_ms: 12, status_code: 204, error: null });
    await webhooks.endDelivery(uow.direct, row.id, 1, { status: 'delivered', delivered_at: now + 1, last_status_code: 204 });
    const done = await webhooks.findDelivery(uow.direct, row.id);
    assert.equal(done?.status, 'delivered');
    assert.equal(done?.attempts, 1);
    assert.equal((await webhooks.listAttempts(uow.direct, [row.id]))[0]?.status_code, 204);
    // Neither a give-up nor a later result moves a delivery that is no longer pending.
    await webhooks.failPendingDelivery(uow.direct, row.id, 'gave up');
    await webhooks.endDelivery(uow.direct, row.id, 1, { status: 'failed' });
    assert.equal((await webhooks.findDelivery(uow.direct, row.id))?.status, 'delivered');
  });

  test('the signing secret is replaced by compare-and-set on the one read', async () => {
    const { webhooks, uow } = ports();
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const before = await webhooks.findWebhookSecrets(uow.direct, user.id);
    assert.ok(before);
    const next = { webhook_secret: 'whsec_bmV4dA==', webhook_secret_previous: before.webhook_secret, webhook_secret_rotated_at: now };
    assert.equal(await webhooks.replaceWebhookSecrets(uow.direct, user.id, before.webhook_secret, next), true);
    assert.equal(await webhooks.replaceWebhookSecrets(uow.direct, user.id, before.webhook_secret, { ...next, webhook_secret: 'whsec_b3RoZXI=' }), false);
    assert.deepEqual({ ...(await webhooks.findWebhookSecrets(uow.direct, user.id)) }, next);
    assert.equal(await webhooks.findWebhookSecrets(uow.direct, 'usr_missing'), undefined);
  });
});
