import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN } from '../support/gateway.ts';
import { call, createSharedStores, spawnGateway } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

const config = {
  providers: {
    // Slow to answer a submit: the worker is killed while the submit is in flight.
    'slow-submit': { type: 'local', options: { submitDelayMs: 1500 } },
    // Accepts at once, finishes after a while: the worker is killed while it polls.
    'slow-job': { type: 'local', options: { latencyMs: 1500 } },
  },
  routes: { 'z-image-turbo': ['slow-submit'], 'qwen-image': ['slow-job'] },
  worker: { leaseMs: 1000 },
};

interface Detail {
  status: string;
  attempts: Array<{ provider: string; state: string; upstreamId: string | null }>;
}

for (const mode of ['embedded', 'scaleout'] as const) {
  describe(`a worker killed with SIGKILL during an attempt [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    for (const [model, phase, expectState] of [
      ['z-image-turbo', 'while submitting', 'submitting'],
      ['qwen-image', 'while polling an accepted job', 'accepted'],
    ] as const) {
      test(`${phase}: another process finishes the task, with one debit, no refund and no lost task`, { skip }, async () => {
        const stores = await createSharedStores(mode, config);
        const first = await spawnGateway(stores);
        let second: Awaited<ReturnType<typeof spawnGateway>> | undefined;
        try {
          const user = (await call(first.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100 })).body as { id: string };
          const key = ((await call(first.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
          const created = await call(first.url, key, 'POST', '/api/v1/generation/create', { model, input: { prompt: 'survive the crash' } });
          assert.equal(created.status, 200);
          const taskId = (created.body as { data: { taskId: string } }).data.taskId;

          const deadline = Date.now() + 10_000;
          let detail: Detail | undefined;
          while (Date.now() < deadline) {
            detail = ((await call(first.url, key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: Detail }).data;
            if (detail.attempts[0]?.state === expectState) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.equal(detail?.attempts[0]?.state, expectState, 'the attempt is in flight when the worker dies');
          await first.kill();

          second = await spawnGateway(stores);
          const finishBy = Date.now() + 30_000;
          while (Date.now() < finishBy) {
            detail = ((await call(second.url, key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: Detail }).data;
            if (detail.status === 'finished' || detail.status === 'failed') break;
            await new Promise((r) => setTimeout(r, 50));
          }
          assert.equal(detail?.status, 'finished');
          // The interrupted attempt was reconciled and continued, not re-sent blindly as a second job.
          assert.deepEqual(detail?.attempts.map((a) => [a.provider, a.state]), [[config.routes[model][0], 'succeeded']]);
          const ledger = (await call(second.url, ADMIN_TOKEN, 'GET', `/admin/v1/users/${user.id}/ledger`)).body as { data: Array<{ kind: string }>; balanceMicroUsd: string };
          assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
          const price = model === 'z-image-turbo' ? 10_000 : 20_000;
          assert.equal(ledger.balanceMicroUsd, String(1_000_000 - price));
        } finally {
          await first.kill();
          await second?.stop();
          await stores.dispose();
        }
      });
    }
  });
}

describe('ROLE=api and ROLE=worker processes share the work [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));

  test('an API process queues, two worker processes finish everything, woken through Redis', { skip }, async () => {
    const stores = await createSharedStores('scaleout', { providers: { quick: { type: 'local', options: { latencyMs: 50 } } }, routes: { 'z-image-turbo': ['quick'] } });
    const api = await spawnGateway(stores, 'api');
    const workers = [await spawnGateway(stores, 'worker'), await spawnGateway(stores, 'worker')];
    try {
      const user = (await call(api.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100 })).body as { id: string };
      const key = ((await call(api.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
      // Workers are idle by now: only a wake-up (not a timer) starts them promptly.
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await call(api.url, key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `n${i}` } });
        ids.push((created.body as { data: { taskId: string } }).data.taskId);
      }
      const statuses = new Map<string, string>();
      while (Date.now() - started < 60_000 && statuses.size < ids.length) {
        for (const id of ids) {
          if (statuses.has(id)) continue;
          const status = ((await call(api.url, key, 'GET', `/api/v1/task/status/${id}`)).body as { data: { status: string } }).data.status;
          if (status === 'finished' || status === 'failed') statuses.set(id, status);
        }
      }
      assert.equal([...statuses.values()].filter((s) => s === 'finished').length, 20);
      const ledger = (await call(api.url, ADMIN_TOKEN, 'GET', `/admin/v1/users/${user.id}/ledger?limit=100`)).body as { balanceMicroUsd: string };
      assert.equal(ledger.balanceMicroUsd, String(1_000_000 - 20 * 10_000));
    } finally {
      for (const w of workers) await w.stop();
      await api.stop();
      await stores.dispose();
    }
  });
});
