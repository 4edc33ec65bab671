/**
 * The poison-job rule (issue 17) on whole gateways, in both modes:
 * - an agent run whose step throws the same way every time (a fault point that throws) is failed with
 *   a clear error after the second failure, not retried for ever: one `run.failed` event, its unspent
 *   budget released, nothing charged, its job gone, `ledger verify` clean;
 * - the give-up hook of a media task fails it and refunds it exactly once, however often it runs;
 * - the give-up hook of a webhook delivery marks it failed.
 */
import assert from 'node:assert/strict';
import { kyselyWebhookPorts, kyselyWebhookStore } from '../../src/adapters/db/stores/webhook-store.ts';
import { test } from 'node:test';
import type { ClaimedJob } from '../../src/ports/work-queue.port.ts';
import { createWebhookGiveUp } from '../../src/services/webhooks/webhook-delivery.handler.ts';
import { enqueueTaskWebhook } from '../../src/services/webhooks/webhook-deliveries.ts';
import { agentClient, assertBooksBalance } from '../support/agent.ts';
import { describeAgent } from '../support/agent-suite.ts';
import { describeEachMode } from '../support/gateway.ts';

for (const [point, charged] of [
  ['agent.before_model_call', false],
  ['agent.after_model_call', true],
] as const) {
  describeAgent(
    `a poisoned agent run (${point} throws)`,
    (ctx) => {
      test('fails cleanly after the same failure twice: one run.failed, its budget released, books balanced', async () => {
        const c = await agentClient(ctx.gw);
        const conversationId = await c.conversation({ title: 'Poisoned' });
        const balanceBefore = Number((await c.call('GET', '/api/v1/user/me')).body.data.balance);
        const accepted = await c.send(conversationId, 'hello');
        const run = await c.waitFor(accepted.runId, ['failed', 'completed', 'cancelled'], 30_000);
        assert.equal(run.status, 'failed');
        assert.equal(run.error?.code, 'internal_error');
        assert.match(String(run.error?.message), /failed on it the same way 2 times in a row; its unspent budget was released/);
        assert.equal(run.budget.committedMicroUsd, '0', 'nothing is left committed');
        // Each of the two tries committed its call's hold: released unused, or settled at what the call was charged.
        assert.deepEqual(
          run.costs.operations.map((o) => [o.kind, o.state]),
          [
            ['chat', charged ? 'settled' : 'released'],
            ['chat', charged ? 'settled' : 'released'],
          ],
        );
        const settled = run.costs.operations.reduce((sum, o) => sum + Number(o.costMicroUsd), 0);
        assert.equal(run.budget.settledMicroUsd, String(settled));
        assert.equal(settled > 0, charged);
        const events = await c.events(conversationId);
        assert.equal(events.filter((e) => e.type === 'run.failed').length, 1);
        assert.equal(events.filter((e) => e.runId === accepted.runId && e.type === 'run.completed').length, 0);
        // The pool removes the job right after the hook returns.
        const db = ctx.gw.gateway.services.database.db;
        const gone = Date.now() + 5_000;
        while ((await db.selectFrom('jobs').select('id').where('ref_id', '=', accepted.runId).execute()).length > 0) {
          assert.ok(Date.now() < gone, 'the job is gone: nothing retries the run');
          await new Promise((r) => setTimeout(r, 20));
        }
        if (!charged) assert.equal(Number((await c.call('GET', '/api/v1/user/me')).body.data.balance), balanceBefore);
        await assertBooksBalance(ctx.gw);
        // The conversation is free again.
        const conversation = (await c.call('GET', `/api/v1/agent/conversations/${conversationId}`)).body.data as { activeRunId?: string | null };
        assert.ok(!conversation.activeRunId, JSON.stringify(conversation));
      });
    },
    { env: { SWITCHBOARD_FAULT_POINTS: `${point}:throw` }, protocols: ['openai'] },
  );
}

describeEachMode(
  'give-up hooks of media tasks and webhook deliveries',
  (ctx) => {
    const jobFor = (kind: string, refId: string): ClaimedJob => ({ id: `job_${refId}`, kind, refId, queue: 'parked', runAt: 0, attempts: 1, leaseUntil: 0 });

    test('a media task given up is failed and refunded exactly once, however often the hook runs', async () => {
      const { userId, key } = await ctx.gw.createUser(100);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a parked job' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const deadline = Date.now() + 10_000;
      for (;;) {
        const status = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { status: string } }).data.status;
        if (status === 'processing') break;
        assert.ok(Date.now() < deadline, status);
        await new Promise((r) => setTimeout(r, 20));
      }
      const runner = ctx.gw.gateway.services.taskRunner;
      await Promise.all([runner.giveUp(jobFor('task', taskId)), runner.giveUp(jobFor('task', taskId)), runner.giveUp(jobFor('task', taskId))]);
      await runner.giveUp(jobFor('task', taskId));
      const detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { status: string; error?: unknown } };
      assert.equal(detail.data.status, 'failed');
      const ledger = await ctx.gw.admin<{ balanceMicroUsd: string; data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'generation_refund', 'initial_credit']);
      assert.equal(ledger.balanceMicroUsd, '1000000');
      await assertBooksBalance(ctx.gw);
    });

    test('a webhook delivery given up is marked failed once', async () => {
      const { userId } = await ctx.gw.createUser(100);
      const services = ctx.gw.gateway.services;
      const db = services.database.db;
      // Nothing listens on port 9: the delivery stays pending between its retries.
      const id = await db.transaction().execute((tx) =>
        enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: services.queue }, { userId, taskId: 'task_poison_hook', eventType: 'task.failed', url: 'http://127.0.0.1:9/hook', body: { code: 200 }, now: Date.now() }),
      );
      assert.ok(id);
      const giveUp = createWebhookGiveUp(kyselyWebhookPorts(db));
      await giveUp(jobFor('webhook', id));
      await giveUp(jobFor('webhook', id));
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'failed');
      assert.match(String(row.last_error), /internal error, repeated/);
    });
  },
  { configFile: { providers: { parked: { type: 'local', options: { latencyMs: 600_000 } } }, routes: { 'z-image-turbo': ['parked'] } } },
);
