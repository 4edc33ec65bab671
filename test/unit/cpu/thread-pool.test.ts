/**
 * The CPU pool (issue 17, item 12): answers come back; a task past its deadline has its thread
 * replaced and the pool goes on; a task past the heap limit is stopped with `memory`; a full queue
 * refuses at once; closing fails what waits. And the gateway's own tasks run through its worker script.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CPU_TASK_DEADLINES_MS } from '../../../src/adapters/cpu/cpu-tasks.ts';
import { ThreadPool } from '../../../src/adapters/cpu/thread-pool.ts';
import { type CpuTaskCatalog, isTaskError, type TaskError } from '../../../src/ports/cpu-pool.port.ts';
import type { TestTasks } from './fixtures/test-tasks.worker.ts';

const SCRIPT = new URL('./fixtures/test-tasks.worker.ts', import.meta.url);

async function failure(promise: Promise<unknown>): Promise<TaskError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isTaskError(error), String(error));
    return error;
  }
  assert.fail('the task succeeded');
}

describe('thread pool', () => {
  test('answers come back, transferred buffers arrive whole, and a thrown error is a crashed task', async () => {
    const pool = new ThreadPool<TestTasks>({ script: SCRIPT, deadlineMs: () => 5_000, threads: 2 });
    try {
      const bytes = new Uint8Array(1024 * 1024).fill(7);
      const answers = await Promise.all([
        pool.run('echo', { value: { a: [1, 'two', null] } }),
        pool.run('echo', { value: 'x', bytes }, { transfer: [bytes.buffer] }),
        pool.run('echo', { value: 3 }),
      ]);
      assert.deepEqual(answers, [{ value: { a: [1, 'two', null] }, bytes: 0 }, { value: 'x', bytes: 1024 * 1024 }, { value: 3, bytes: 0 }]);
      assert.equal(bytes.byteLength, 0, 'the buffer was handed over, not copied');
      assert.ok(pool.threadCount <= 2);
      const crashed = await failure(pool.run('fail', {}));
      assert.equal(crashed.reason, 'crashed');
      assert.match(crashed.message, /broken task/);
      assert.deepEqual(await pool.run('echo', { value: 'after' }), { value: 'after', bytes: 0 });
    } finally {
      await pool.close();
    }
  });

  test('a task past its deadline has its thread stopped and replaced; the tasks behind it still run', async () => {
    const pool = new ThreadPool<TestTasks>({ script: SCRIPT, deadlineMs: () => 5_000, threads: 1 });
    try {
      const started = Date.now();
      const runaway = pool.run('spin', {}, { deadlineMs: 300 });
      const behind = pool.run('echo', { value: 'next' });
      const error = await failure(runaway);
      assert.equal(error.reason, 'deadline');
      assert.ok(Date.now() - started < 3_000, 'stopped near its deadline');
      assert.deepEqual(await behind, { value: 'next', bytes: 0 });
      assert.equal(pool.threadCount, 1);
    } finally {
      await pool.close();
    }
  });

  test('a task past the heap limit is stopped with memory, and the pool goes on', async () => {
    const pool = new ThreadPool<TestTasks>({ script: SCRIPT, deadlineMs: () => 30_000, threads: 1, heapMb: 48 });
    try {
      const error = await failure(pool.run('hog', {}));
      assert.equal(error.reason, 'memory');
      assert.deepEqual(await pool.run('echo', { value: 1 }), { value: 1, bytes: 0 });
    } finally {
      await pool.close();
    }
  });

  test('a full queue refuses at once with busy; closing fails the waiting tasks and refuses new ones', async () => {
    const pool = new ThreadPool<TestTasks>({ script: SCRIPT, deadlineMs: () => 10_000, threads: 1, maxQueued: 2 });
    const running = pool.run('spin', {});
    const waiting = [pool.run('echo', { value: 1 }), pool.run('echo', { value: 2 })];
    assert.equal((await failure(pool.run('echo', { value: 3 }))).reason, 'busy');
    const outcomes = Promise.allSettled([running, ...waiting]);
    await pool.close();
    for (const outcome of await outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as TaskError).reason, 'closed');
    }
    assert.equal((await failure(pool.run('echo', { value: 4 }))).reason, 'closed');
    assert.equal(pool.threadCount, 0);
  });

  test('the queue is bounded by the bytes it holds too', async () => {
    const pool = new ThreadPool<TestTasks>({ script: SCRIPT, deadlineMs: () => 10_000, threads: 1, maxQueuedBytes: 1000 });
    try {
      const running = pool.run('spin', {}, { deadlineMs: 500 });
      const first = pool.run('echo', { value: 0, bytes: new Uint8Array(800) });
      assert.equal((await failure(pool.run('echo', { value: 1, bytes: new Uint8Array(800) }))).reason, 'busy');
      assert.equal((await failure(running)).reason, 'deadline');
      assert.deepEqual(await first, { value: 0, bytes: 800 });
    } finally {
      await pool.close();
    }
  });

  test("the gateway's worker script runs its catalog", async () => {
    const pool = new ThreadPool<CpuTaskCatalog>({ script: new URL('../../../src/adapters/cpu/cpu-worker.ts', import.meta.url), deadlineMs: (kind) => CPU_TASK_DEADLINES_MS[kind as keyof CpuTaskCatalog] });
    try {
      const parsed = await pool.run('parseJson', { parts: [new TextEncoder().encode('{"a":[1,'), new TextEncoder().encode('2,{"b":"c"}]}')], limits: { maxDepth: 8, maxValues: 100 } });
      assert.deepEqual(parsed, { ok: true, value: { a: [1, 2, { b: 'c' }] } });
      assert.deepEqual(await pool.run('countMaskPixels', { grey: Uint8Array.from([0, 10, 128, 250, 255]) }), { white: 2, black: 2, total: 5 });
    } finally {
      await pool.close();
    }
  });
});
