/**
 * JSON request bodies (issue 17, item 11): the number of values is bounded as the nesting is; small
 * bodies are read on the event loop and large ones in the CPU pool, with the same answers; a pool that
 * cannot take the task answers 503 to retry, a body too costly to read 413.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CPU_TASK_DEADLINES_MS } from '../../../src/adapters/cpu/cpu-tasks.ts';
import { ThreadPool } from '../../../src/adapters/cpu/thread-pool.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { INLINE_JSON_BYTES, MAX_JSON_VALUES, parseJsonBody, readJsonBody } from '../../../src/http/json-body.ts';
import { type CpuPool, type CpuTaskCatalog, TaskError, type TaskFailure } from '../../../src/ports/cpu-pool.port.ts';

const pool = new ThreadPool<CpuTaskCatalog>({ script: new URL('../../../src/adapters/cpu/cpu-worker.ts', import.meta.url), deadlineMs: (kind) => CPU_TASK_DEADLINES_MS[kind as keyof CpuTaskCatalog] });
after(() => pool.close());

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error;
  }
  assert.fail('accepted');
}

function failingPool(reason: TaskFailure): CpuPool {
  return { run: () => Promise.reject(new TaskError(reason, 'parseJson', reason)), answered: () => 0, close: async () => {} };
}

describe('JSON bodies', () => {
  test('a body of more values than any request holds is refused, on the loop and in the pool', async () => {
    const arrays = (n: number) => `{"a":[${'[],'.repeat(n - 1)}[]]}`;
    assert.deepEqual(parseJsonBody(arrays(1000)), { a: new Array(1000).fill([]) });
    assert.throws(() => parseJsonBody(arrays(MAX_JSON_VALUES + 1)), /holds more than 100000 values/);
    const big = Buffer.from(arrays(5 * 1024 * 1024 / 3));
    assert.ok(big.length > INLINE_JSON_BYTES);
    const error = await refusal(readJsonBody(big, pool));
    assert.equal(error.status, 400);
    assert.match(error.message, /holds more than 100000 values/);
  });

  test('a large body comes back whole from the pool; bad JSON, deep nesting and poisoning are refused as on the loop', async () => {
    const picture = 'A'.repeat(3 * 1024 * 1024);
    const body = { model: 'm', input: { urls: [`data:image/png;base64,${picture}`], n: [1, 2, { x: null }] } };
    assert.deepEqual(await readJsonBody(Buffer.from(JSON.stringify(body)), pool), body);
    const pad = ' '.repeat(INLINE_JSON_BYTES);
    assert.match((await refusal(readJsonBody(Buffer.from(`{"a":1,${pad}`), pool))).message, /Body is not valid JSON/);
    assert.match((await refusal(readJsonBody(Buffer.from(`${'['.repeat(200)}${']'.repeat(200)}${pad}`), pool))).message, /nested deeper than 128 levels/);
    assert.match((await refusal(readJsonBody(Buffer.from(`{"__proto__":{"x":1}}${pad}`), pool))).message, /Body is not valid JSON/);
  });

  test('a pool that cannot take the body answers 503 with Retry-After; one that gave up on it 413', async () => {
    const big = Buffer.alloc(INLINE_JSON_BYTES + 1, 0x20);
    const busy = await refusal(readJsonBody(big, failingPool('busy')));
    assert.deepEqual([busy.status, busy.code, busy.retryAfter], [503, 'service_unavailable', 1]);
    const costly = await refusal(readJsonBody(big, failingPool('deadline')));
    assert.deepEqual([costly.status, costly.code], [413, 'payload_too_large']);
    // Small bodies never touch the pool.
    assert.deepEqual(await readJsonBody(Buffer.from('{"a":1}'), failingPool('busy')), { a: 1 });
  });
});
