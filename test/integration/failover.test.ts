import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

interface Attempt {
  provider: string;
  state: string;
  error: string | null;
  upstreamId: string | null;
}

const config = {
  providers: {
    'flaky-accepts': { type: 'local', options: { latencyMs: 30, failureRate: 1, failAt: 'poll' } },
    'flaky-refuses': { type: 'local', options: { failureRate: 1, failAt: 'submit' } },
    steady: { type: 'local', options: { latencyMs: 20 } },
    parked: { type: 'local', options: { latencyMs: 600_000 } },
  },
  routes: {
    'z-image-turbo': ['flaky-accepts', 'steady'],
    'grok-imagine-image': ['flaky-refuses', 'flaky-accepts'],
    'qwen-image': ['parked'],
  },
};

describeEachMode(
  'failover and refunds',
  (ctx) => {
    test('provider A accepts then fails, provider B finishes: one debit, no refund', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a boat' } });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'finished');
      assert.equal(task.files.length, 1);
      const detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Attempt[] } };
      assert.deepEqual(
        detail.data.attempts.map((a) => [a.provider, a.state]),
        [
          ['flaky-accepts', 'failed'],
          ['steady', 'succeeded'],
        ],
      );
      assert.ok(detail.data.attempts[0]?.upstreamId, 'A had accepted the job');
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }>; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
      assert.equal(ledger.balanceMicroUsd, String(1_000_000 - 10_000));
    });

    test('every route fails: the task fails with exactly one refund and the balance restored to the micro-USD', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'grok-imagine-image', input: { prompt: 'a cat' } });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'failed');
      assert.match(task.errorMessage ?? '', /injected failure/);
      assert.deepEqual(task.files, []);
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string; amountMicroUsd: string }>; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.equal(ledger.balanceMicroUsd, '1000000');
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_refund').length, 1);
      assert.equal(ledger.data.find((e) => e.kind === 'generation_refund')?.amountMicroUsd, '20000');
      const detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Attempt[]; cost: { refundedMicroUsd: string } } };
      assert.deepEqual(detail.data.attempts.map((a) => [a.provider, a.state]), [
        ['flaky-refuses', 'failed'],
        ['flaky-accepts', 'failed'],
      ]);
      assert.equal(detail.data.cost.refundedMicroUsd, '20000');
    });

    test('the operator sees each provider’s recent error rate, from every process’s attempts', async () => {
      const providers = await ctx.gw.admin<{ data: Array<{ name: string; health: { status: string; calls: number; errors: number; lastError: string | null } }> }>('GET', '/admin/v1/providers');
      const byName = new Map(providers.data.map((p) => [p.name, p.health]));
      assert.equal(byName.get('flaky-accepts')?.status, 'down');
      assert.ok((byName.get('flaky-accepts')?.errors ?? 0) >= 2);
      assert.match(byName.get('flaky-accepts')?.lastError ?? '', /injected failure/);
      assert.equal(byName.get('steady')?.status, 'healthy');
      assert.equal(byName.get('parked')?.status, 'unknown');
    });

    test('1,000 concurrent creates against a balance that pays for exactly 400: 400 tasks, zero balance, books that verify', async () => {
      const { key, userId } = await ctx.gw.createUser(400 * 2);
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'qwen-image', input: { prompt: `parked ${i}` } })),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 400);
      assert.equal(statuses.filter((s) => s === 402).length, 600);
      const me = (await ctx.gw.api(key, 'GET', '/api/v1/user/me')).body as { data: { balance: number } };
      assert.equal(me.data.balance, 0);
      const ledger = await ctx.gw.admin<{ balanceMicroUsd: string; data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger?limit=1000`);
      assert.equal(ledger.balanceMicroUsd, '0');
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_debit').length, 400);
      const ids = new Set(results.filter((r) => r.status === 200).map((r) => (r.body as { data: { taskId: string } }).data.taskId));
      assert.equal(ids.size, 400);
      const mismatches = await import('../../src/adapters/db/ledger/ledger-checks.ts').then((m) => m.verifyLedger(ctx.gw.gateway.services.database.db));
      assert.deepEqual(mismatches, []);
    });
  },
  { configFile: config },
);
