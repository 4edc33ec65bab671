/**
 * The run limit is exact (AGENT.md "Budget"): the settled charges of a run never pass its
 * maxCostMicroUsd, because every dispatch commits its amount against the limit in the transaction
 * that starts it; a dispatch that does not fit waits. Checked on one run that asks for more than it
 * may spend, and under load: many conversations with follow-ups sent concurrently.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, assertBooksBalance, type RunView } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const IMAGE_MICRO = 10_000; // z-image-turbo
const images = (n: number) => ({ toolCalls: Array.from({ length: n }, (_, i) => ({ name: 'generate_image', arguments: { prompt: `image ${i}`, model: 'z-image-turbo' } })) });

function assertWithinLimit(view: RunView): void {
  const limit = Number(view.budget.limitMicroUsd);
  const settled = Number(view.budget.settledMicroUsd);
  const committed = Number(view.budget.committedMicroUsd);
  assert.ok(settled + committed <= limit, `${view.runId}: settled ${settled} + committed ${committed} > limit ${limit}`);
  const sum = view.costs.operations.filter((o) => o.state === 'settled').reduce((n, o) => n + Number(o.costMicroUsd), 0);
  assert.equal(sum, settled, `${view.runId}: settled is the sum of its operations`);
}

async function settle(c: AgentClient, runId: string): Promise<RunView> {
  return c.waitFor(runId, ['completed', 'failed', 'cancelled', 'waiting_for_budget'], 30_000);
}

describeAgent(
  'the run limit is exact',
  (ctx) => {
    test('a run asking for more than its limit gets exactly what fits, then waits before sending more', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Exact' });
      ctx.orchestrator.plan(conversationId, images(9), { text: 'done' });
      const limit = 80_000;
      const run = await c.send(conversationId, 'nine images', { maxCostMicroUsd: String(limit) });
      const view = await c.waitFor(run.runId, ['waiting_for_budget']);
      assertWithinLimit(view);
      const chat = view.costs.operations.filter((o) => o.kind === 'chat').reduce((n, o) => n + Number(o.costMicroUsd), 0);
      const dispatched = view.costs.operations.filter((o) => o.kind === 'generation').length;
      assert.equal(dispatched, Math.min(9, Math.floor((limit - chat) / IMAGE_MICRO)));
      const needed = Number(view.budget.neededMicroUsd);
      assert.ok(Number(view.budget.settledMicroUsd) + Number(view.budget.committedMicroUsd) + needed > limit, 'the waiting dispatch truly did not fit');
      const generations = (await c.call('GET', '/api/v1/generations?limit=100')).body.data.items as unknown[];
      assert.equal(generations.length, dispatched, 'nothing was sent beyond the limit');
      await assertBooksBalance(ctx.gw);
    });

    test('under concurrent follow-ups in many conversations, no run passes its limit and the books balance', async () => {
      const conversations = 6;
      const followups = 4;
      const c = await agentClient(ctx.gw, 100_000);
      const ids = await Promise.all(Array.from({ length: conversations }, (_, i) => c.conversation({ title: `load ${i}` })));
      for (const id of ids) for (let r = 0; r <= followups; r++) ctx.orchestrator.plan(id, images(4), { text: `answer ${r}` });
      const accepted = await Promise.all(
        ids.map(async (id) => {
          const first = await c.send(id, 'first', { maxCostMicroUsd: String(45_000 + (id.charCodeAt(id.length - 1) % 5) * 7_000) });
          const rest = await Promise.all(Array.from({ length: followups }, (_, r) => c.send(id, `follow-up ${r}`, { deliveryMode: 'followup', maxCostMicroUsd: String(30_000 + r * 9_000) })));
          return [first, ...rest];
        }),
      );
      // Drive every conversation to the end, run after run in the order they start: a run that waits
      // for budget is stopped, which starts the next one.
      await Promise.all(
        ids.map(async (conversationId, i) => {
          const runIds = new Set((accepted[i] ?? []).map((a) => a.runId));
          const ended = new Set<string>();
          while (ended.size < runIds.size) {
            const active = (await c.call('GET', `/api/v1/agent/conversations/${conversationId}`)).body.data.activeRunId as string | null;
            if (active === null) {
              await new Promise((r) => setTimeout(r, 20));
              for (const id of runIds) if (!ended.has(id) && ['completed', 'failed', 'cancelled'].includes((await c.run(id)).status)) ended.add(id);
              continue;
            }
            let view = await settle(c, active);
            assertWithinLimit(view);
            if (view.status === 'waiting_for_budget') {
              await c.call('POST', `/api/v1/agent/runs/${active}/stop`);
              view = await c.waitFor(active, ['cancelled']);
            }
            assertWithinLimit(view);
            assert.equal(view.budget.committedMicroUsd, '0');
            ended.add(active);
          }
        }),
      );
      await assertBooksBalance(ctx.gw);
    });
  },
  { protocols: ['openai'] },
);
