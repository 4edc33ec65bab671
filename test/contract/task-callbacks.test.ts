/**
 * An upstream's callback as the task runner takes it (TaskRunner.acceptCallback), on both stores: the
 * route has authenticated and parsed it; the runner records the upstream id and wakes the task, or
 * records the late outcome of an attempt it already left, and changes nothing else.
 */
import assert from 'node:assert/strict';
import { kyselyTaskPorts } from '../../src/adapters/db/stores/task-store.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { pino } from 'pino';
import { LocalBlobStore } from '../../src/adapters/blob/local-blob-store.ts';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { type AttemptRow, findAttempt, insertAttempt, insertTask, type TaskRow } from '../../src/adapters/db/repositories/tasks.repository.ts';
import { Metrics } from '../../src/adapters/metrics/metrics.ts';
import { GuardedHttpClient } from '../../src/adapters/outbound/guarded-http-client.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { Catalog } from '../../src/domain/catalog/catalog.ts';
import type { AttemptState, TaskStatus } from '../../src/domain/tasks/task-status.ts';
import type { MediaProvider, PollOutcome } from '../../src/providers/media/media-provider.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { ResultStore } from '../../src/services/generation/result-store.ts';
import { DEFAULT_TIMINGS, TaskRunner } from '../../src/services/generation/task-runner.ts';
import { describeEachDatabase } from '../support/databases.ts';
import { attemptRow, taskRow } from '../support/task-rows.ts';

describeEachDatabase('task callbacks', (t) => {
  const now = Date.UTC(2026, 10, 25, 12);
  const bus = new MemoryEventBus();
  const woken: string[] = [];
  /** What the upstream answers when the runner asks it about an attempt it left. */
  let answer: PollOutcome = { kind: 'pending' };
  const upstream: MediaProvider = {
    name: 'up-main',
    type: 'test',
    defaultPollMs: 1000,
    submit: () => Promise.reject(new Error('not sent in these tests')),
    reconcile: () => Promise.reject(new Error('not asked in these tests')),
    poll: async () => answer,
  };
  let runner: TaskRunner;

  before(async () => {
    const queue = new DbWorkQueue(t.handle, bus);
    await queue.onWake((name) => woken.push(name));
    const outbound = new GuardedHttpClient({ allowPrivate: true });
    runner = new TaskRunner({
      ...kyselyTaskPorts(t.handle.db),
      queue,
      catalog: Catalog.build(),
      providers: (name) => (name === upstream.name ? upstream : undefined),
      results: new ResultStore(new LocalBlobStore(mkdtempSync(join(tmpdir(), 'sb-callbacks-')), () => 'http://127.0.0.1'), outbound, 1_000_000),
      onTerminal: async () => {},
      callbackBaseUrl: () => 'http://127.0.0.1',
      fileRetentionMs: 3 * 86_400_000,
      logger: pino({ level: 'silent' }),
      metrics: new Metrics(),
      timings: () => DEFAULT_TIMINGS,
      now: () => now,
    });
  });

  async function taskWithAttempt(status: TaskStatus, state: AttemptState, upstreamId: string | null): Promise<{ task: TaskRow; attempt: AttemptRow }> {
    const user = await createUser(t.handle.db, { balanceMicro: 0 });
    const routes = JSON.stringify([{ provider: upstream.name, model: 'z' }]);
    const task = taskRow(user.id, now, { status, input_json: JSON.stringify({ prompt: 'a lighthouse' }), measured_json: '[]', routes_json: routes, started_at: now });
    const attempt = attemptRow(task, now, { provider: upstream.name, upstream_id: upstreamId, state, callback_token: 'cb-token', accepted_at: null });
    await insertTask(t.handle.db, task);
    await insertAttempt(t.handle.db, attempt);
    return { task, attempt };
  }

  const jobsOf = async (taskId: string) =>
    (await t.handle.db.selectFrom('jobs').select(['kind', 'queue', 'run_at']).where('ref_id', '=', taskId).execute()).map((r) => [r.kind, r.queue, r.run_at]);

  test('an open attempt: the upstream id we lacked is recorded, and the task is made due now in its provider’s queue and woken', async () => {
    const { task, attempt } = await taskWithAttempt('processing', 'unknown', null);
    woken.length = 0;
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-42' }), 'woken');
    const after = await findAttempt(t.handle.db, attempt.id);
    assert.deepEqual([after?.upstream_id, after?.state], ['up-42', 'unknown'], 'the id is recorded; the next step polls the truth');
    assert.deepEqual(await jobsOf(task.id), [['task', upstream.name, now]]);
    assert.deepEqual(woken, [upstream.name]);
  });

  test('an open attempt that has its upstream id keeps it: a callback never rewrites it', async () => {
    const { task, attempt } = await taskWithAttempt('processing', 'accepted', 'up-first');
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-other' }), 'woken');
    assert.equal((await findAttempt(t.handle.db, attempt.id))?.upstream_id, 'up-first');
    assert.equal((await jobsOf(task.id)).length, 1);
  });

  test('a task that has ended is not woken, and its attempt is not touched', async () => {
    const { task, attempt } = await taskWithAttempt('finished', 'accepted', 'up-1');
    woken.length = 0;
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-2', outcome: { kind: 'completed', result: { files: [] } } }), 'ignored');
    // The store fills what the insert left out (migration 038's upstream cost: none yet).
    assert.deepEqual({ ...(await findAttempt(t.handle.db, attempt.id)) }, { upstream_cost_micro: null, ...attempt });
    assert.deepEqual(await jobsOf(task.id), []);
    assert.deepEqual(woken, []);
  });

  test('an attempt we left: a signed outcome is recorded once as its late outcome, and nothing else changes', async () => {
    const { task, attempt } = await taskWithAttempt('processing', 'failed', 'up-1');
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-1', outcome: { kind: 'completed', result: { files: [] } } }), 'ignored');
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-1', outcome: { kind: 'failed', error: { message: 'x', retryable: false } } }), 'ignored');
    const after = await findAttempt(t.handle.db, attempt.id);
    assert.deepEqual([after?.state, after?.late_outcome, after?.late_at], ['failed', 'succeeded', now], 'the first late outcome stands');
    assert.deepEqual(await jobsOf(task.id), []);
  });

  test('an attempt we left, told without a trusted outcome: the upstream is asked after the answer, and its answer recorded', async () => {
    const { attempt } = await taskWithAttempt('processing', 'abandoned', 'up-7');
    answer = { kind: 'failed', error: { message: 'upstream failed late', retryable: false } };
    assert.equal(await runner.acceptCallback(attempt, { upstreamId: 'up-7' }), 'ignored');
    assert.equal((await findAttempt(t.handle.db, attempt.id))?.late_outcome, null, 'not asked before the callback is answered');
    const deadline = Date.now() + 5_000;
    while ((await findAttempt(t.handle.db, attempt.id))?.late_outcome === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await findAttempt(t.handle.db, attempt.id))?.late_outcome, 'failed');
  });
});
