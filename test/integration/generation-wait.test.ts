/**
 * Issue 34, item 2: `Prefer: wait=N` on POST /api/v1/generation/create answers with the ended task
 * (the status answer's shape, `Preference-Applied: wait=N`) when it ends within N seconds, else the
 * usual create answer; the create is debited and queued once either way. The wait is a bus
 * subscription and a timer (released on time-out and when the client leaves); in scale-out mode the
 * task ends in a worker process and the news comes over Redis.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { TASK_CHANGED_TOPIC } from '../../src/services/generation/task-watch.ts';
import { ADMIN_TOKEN, describeEachMode, type TestGateway } from '../support/gateway.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateways } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';
import { waitForTask } from '../support/tasks.ts';

interface Answer {
  status: number;
  body: { code: number; data: Record<string, unknown> };
  applied: string | null;
  ms: number;
}

async function createWaiting(url: string, key: string, body: unknown, prefer: string | undefined, signal?: AbortSignal): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${url}/api/v1/generation/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(prefer !== undefined ? { prefer } : {}) },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], applied: res.headers.get('preference-applied'), ms: Date.now() - started };
}

/** How many subscribers the task's topic has on this gateway's bus (in-process map, or Redis PUBSUB NUMSUB). */
async function subscribers(gw: TestGateway, taskId: string): Promise<number> {
  const topic = TASK_CHANGED_TOPIC + taskId;
  if (gw.mode === 'embedded') {
    const handlers = Reflect.get(gw.gateway.services.bus, 'handlers') as Map<string, Set<unknown>>;
    return handlers.get(topic)?.size ?? 0;
  }
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const answer = (await redis.call('PUBSUB', 'NUMSUB', `${gw.env.SWITCHBOARD_REDIS_PREFIX}${topic}`)) as [string, number];
    return Number(answer[1]);
  } finally {
    redis.disconnect();
  }
}

async function debitsOf(gw: TestGateway, userId: string): Promise<Array<{ kind: string; reference: string | null }>> {
  const ledger = await gw.admin<{ data: Array<{ kind: string; reference: string | null }> }>('GET', `/admin/v1/users/${userId}/ledger`);
  return ledger.data.filter((e) => e.kind === 'generation_debit');
}

const quick = { model: 'z-image-turbo', input: { prompt: 'a quick lighthouse' } };
const slow = { model: 'qwen-image', input: { prompt: 'a slow lighthouse' } };

describeEachMode(
  'Prefer: wait on create',
  (ctx) => {
    test('a task that ends within N seconds is answered finished, in the status shape, with Preference-Applied', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const answer = await createWaiting(ctx.gw.url, key, quick, 'wait=10');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.applied, 'wait=10');
      const data = answer.body.data as { taskId: string; status: string; files: Array<{ fileUrl: string }> };
      assert.equal(data.status, 'finished');
      assert.equal(data.files.length, 1);
      const status = (await ctx.gw.api(key, 'GET', `/api/v1/task/status/${data.taskId}`)).body;
      assert.deepEqual(answer.body, status, 'the same body as GET /task/status');
      assert.deepEqual((await debitsOf(ctx.gw, userId)).map((d) => d.reference), [data.taskId], 'debited once');
      assert.equal(await subscribers(ctx.gw, data.taskId), 0, 'the subscription was released');
    });

    test('a task still running after N seconds gets the usual create answer after N seconds, queued once', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const answer = await createWaiting(ctx.gw.url, key, slow, 'wait=1');
      assert.equal(answer.status, 200);
      assert.equal(answer.applied, 'wait=1');
      const data = answer.body.data as { taskId: string; status: string; createdAt: string };
      assert.deepEqual(Object.keys(data).sort(), ['createdAt', 'status', 'taskId']);
      assert.ok(answer.ms >= 950 && answer.ms < 3_000, `answered after ${answer.ms} ms`);
      assert.equal(await subscribers(ctx.gw, data.taskId), 0, 'released on time-out');
      assert.equal((await waitForTask(ctx.gw, key, data.taskId)).status, 'finished');
      assert.equal((await debitsOf(ctx.gw, userId)).length, 1);
    });

    test('values as Replicate reads them: bare wait and more than 60 are 60; 0, malformed or absent are ignored', async () => {
      const { key } = await ctx.gw.createUser(100);
      assert.equal((await createWaiting(ctx.gw.url, key, quick, 'wait')).applied, 'wait=60');
      assert.equal((await createWaiting(ctx.gw.url, key, quick, 'respond-async, wait=600')).applied, 'wait=60');
      for (const prefer of ['wait=0', 'wait=abc', 'wait=1.5', 'wait=', 'return=minimal', undefined]) {
        const answer = await createWaiting(ctx.gw.url, key, slow, prefer);
        assert.equal(answer.status, 200, String(prefer));
        assert.equal(answer.applied, null, String(prefer));
        assert.ok(answer.ms < 900, `${prefer}: ${answer.ms} ms`);
        assert.equal((answer.body.data as { status: string }).status, 'not_started');
      }
    });

    test('a client that leaves mid-wait releases the subscription; the task still runs, debited once', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const leave = new AbortController();
      const pending = createWaiting(ctx.gw.url, key, slow, 'wait=30', leave.signal).catch((error: unknown) => error);
      let taskId: string | undefined;
      const deadline = Date.now() + 5_000;
      while (!taskId && Date.now() < deadline) {
        taskId = (await debitsOf(ctx.gw, userId))[0]?.reference ?? undefined;
        if (!taskId) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(taskId, 'the create was debited');
      while ((await subscribers(ctx.gw, taskId)) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await subscribers(ctx.gw, taskId), 1, 'waiting on the bus');
      leave.abort();
      assert.ok((await pending) instanceof Error);
      const released = Date.now() + 3_000;
      while ((await subscribers(ctx.gw, taskId)) > 0 && Date.now() < released) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await subscribers(ctx.gw, taskId), 0, 'released when the client left');
      assert.equal((await waitForTask(ctx.gw, key, taskId)).status, 'finished');
      assert.equal((await debitsOf(ctx.gw, userId)).length, 1);
    });
  },
  {
    configFile: {
      providers: { parked: { type: 'local', options: { latencyMs: 2_500 } } },
      routes: { 'qwen-image': ['parked'] },
    },
  },
);

describe('Prefer: wait across processes [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
  test('an API process without a worker answers the finished task: the end came from the worker over Redis', { skip }, async () => {
    const stores = await createSharedStores('scaleout', { providers: { steady: { type: 'local', options: { latencyMs: 300 } } }, routes: { 'z-image-turbo': ['steady'] } });
    const fleet: GatewayProcess[] = [];
    try {
      const [api, worker] = await spawnGateways(stores, ['api', 'worker'], fleet);
      const user = (await call(api.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100 })).body as { id: string };
      const key = ((await call(api.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
      const answer = await createWaiting(api.url, key, quick, 'wait=20');
      assert.equal(answer.applied, 'wait=20');
      assert.equal((answer.body.data as { status: string }).status, 'finished', JSON.stringify(answer.body));
      // The API process polls nothing: it answered well before the 20 s fallback read.
      assert.ok(answer.ms < 10_000, `${answer.ms} ms`);
    } finally {
      await Promise.all(fleet.map((p) => p.stop()));
      await stores.dispose();
    }
  });
});
