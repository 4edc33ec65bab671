/**
 * Rules 5, 6 and 8: the run limit covers settled charges and commitments (a dispatch that would pass
 * it waits before anything is sent), budget PATCH with its version then resume; model-change
 * decisions with version, proposalHash and Idempotency-Key; fallback models after a confirmed failure.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const image = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'generate_image', arguments: args }] });
const propose = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'propose_model_change', arguments: args }] });

async function decide(c: AgentClient, runId: string, key: string, body: Record<string, unknown>) {
  return c.call('POST', `/api/v1/agent/runs/${runId}/decisions`, body, { 'idempotency-key': key });
}

describeAgent(
  'agent budgets, decisions and fallbacks',
  (ctx) => {
    test('rule 5: a dispatch past the limit waits for budget before anything is sent; PATCH then resume', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Budget' });
      ctx.orchestrator.plan(conversationId, image({ prompt: 'a lighthouse' }), { text: 'There it is.' });
      const run = await c.send(conversationId, 'a lighthouse', { maxCostMicroUsd: '60000' });
      const waiting = await c.waitFor(run.runId, ['waiting_for_budget']);
      assert.equal(waiting.waitReason, 'run_limit');
      assert.equal(waiting.budget.neededMicroUsd, '67000');
      assert.ok(Number(waiting.budget.settledMicroUsd) + Number(waiting.budget.committedMicroUsd) <= 60_000);
      assert.equal(waiting.budget.committedMicroUsd, '0');
      // Nothing was sent: no generation exists.
      const before = await c.call('GET', '/api/v1/generations');
      assert.equal((before.body.data.items as unknown[]).length, 0);
      const early = await c.call('POST', `/api/v1/agent/runs/${run.runId}/resume`);
      assert.equal(early.status, 409);
      assert.equal(early.body.error?.code, 'run_not_resumable');
      const stale = await c.call('PATCH', `/api/v1/agent/runs/${run.runId}/budget`, { maxCostMicroUsd: '500000', expectedVersion: waiting.budget.version + 1 });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error?.code, 'version_conflict');
      const tooLow = await c.call('PATCH', `/api/v1/agent/runs/${run.runId}/budget`, { maxCostMicroUsd: '1', expectedVersion: waiting.budget.version });
      assert.equal(tooLow.status, 400);
      const patched = await c.call('PATCH', `/api/v1/agent/runs/${run.runId}/budget`, { maxCostMicroUsd: '500000', expectedVersion: waiting.budget.version });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.data.limitMicroUsd, '500000');
      assert.equal(patched.body.data.version, waiting.budget.version + 1);
      assert.equal((await c.run(run.runId)).status, 'waiting_for_budget');
      const resumed = await c.call('POST', `/api/v1/agent/runs/${run.runId}/resume`);
      assert.equal(resumed.status, 200);
      const done = await c.waitFor(run.runId, ['completed']);
      assert.equal((await c.result(run.runId)).artifacts.length, 1);
      // The completed model turn was reused: one call before the wait, one after the image.
      assert.equal(ctx.orchestrator.callsFor(conversationId).length, 2);
      assert.ok(Number(done.budget.settledMicroUsd) <= 500_000);
      assert.ok((await c.events(conversationId)).some((e) => e.type === 'budget.updated' && e.data.limitMicroUsd === '500000'));
      await assertBooksBalance(ctx.gw);
    });

    test('rule 6: a stale proposal authorizes nothing; accepting switches the model, with Idempotency-Key replays', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Switch' });
      ctx.orchestrator.plan(conversationId, propose({ modality: 'image', toModelId: 'nano-banana-pro', reason: 'a sharper image' }), image({ prompt: 'a cat' }), { text: 'Done with pro.' });
      const run = await c.send(conversationId, 'a sharp cat');
      const waiting = await c.waitFor(run.runId, ['waiting_for_model_approval']);
      const action = waiting.pendingActions[0];
      assert.ok(action?.proposalHash);
      assert.equal(action.version, 1);
      const base = { pendingActionId: action.pendingActionId, version: action.version, proposalHash: action.proposalHash, input: { accept: true } };
      for (const wrong of [{ ...base, proposalHash: 'f'.repeat(64) }, { ...base, version: 2 }]) {
        const refused = await decide(c, run.runId, `k-${Math.random()}`, wrong);
        assert.equal(refused.status, 409);
        assert.equal(refused.body.error?.code, 'proposal_stale');
      }
      assert.equal((await c.run(run.runId)).status, 'waiting_for_model_approval');
      const noKey = await c.call('POST', `/api/v1/agent/runs/${run.runId}/decisions`, base);
      assert.equal(noKey.status, 400);
      const accepted = await decide(c, run.runId, 'decision-1', base);
      assert.equal(accepted.status, 200);
      assert.equal(accepted.body.data.decision, 'accepted');
      const replay = await decide(c, run.runId, 'decision-1', base);
      assert.deepEqual(replay.body.data, accepted.body.data);
      const reused = await decide(c, run.runId, 'decision-1', { ...base, input: { accept: false } });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error?.code, 'idempotency_key_reused');
      const done = await c.waitFor(run.runId, ['completed']);
      const tool = done.steps.find((s) => s.kind === 'tool' && s.name === 'generate_image');
      assert.equal(tool?.input.model, 'nano-banana-pro');
      const again = await decide(c, run.runId, 'decision-2', base);
      assert.equal(again.status, 409);
      assert.equal(again.body.error?.code, 'proposal_stale');
    });

    test('rule 6: declining continues on the selected model when it can, otherwise model_capability_unavailable', async () => {
      const c = await agentClient(ctx.gw);
      // z-image-turbo takes no reference images: a proposal needing two cannot be declined into success.
      const convA = await c.conversation({ title: 'Decline A', settings: { imageModelId: 'z-image-turbo' } });
      ctx.orchestrator.plan(convA, propose({ modality: 'image', toModelId: 'nano-banana-2', reason: 'needs two reference images', requiredReferenceImages: 2 }), image({ prompt: 'x' }));
      const runA = await c.send(convA, 'combine my two photos');
      const waitingA = await c.waitFor(runA.runId, ['waiting_for_model_approval']);
      const a = waitingA.pendingActions[0];
      const declinedA = await decide(c, runA.runId, 'd-a', { pendingActionId: a?.pendingActionId, version: a?.version, proposalHash: a?.proposalHash, input: { accept: false } });
      assert.equal(declinedA.body.data.status, 'failed');
      const failed = await c.waitFor(runA.runId, ['failed']);
      assert.equal(failed.error?.code, 'model_capability_unavailable');
      assert.equal(failed.costs.operations.filter((o) => o.kind === 'generation').length, 0);
      assert.equal(ctx.orchestrator.callsFor(convA).length, 1);

      const convB = await c.conversation({ title: 'Decline B' });
      ctx.orchestrator.plan(convB, propose({ modality: 'image', toModelId: 'nano-banana-pro', reason: 'nicer' }), image({ prompt: 'a dog' }), { text: 'Made with the default.' });
      const runB = await c.send(convB, 'a dog');
      const waitingB = await c.waitFor(runB.runId, ['waiting_for_model_approval']);
      const b = waitingB.pendingActions[0];
      const declinedB = await decide(c, runB.runId, 'd-b', { pendingActionId: b?.pendingActionId, version: b?.version, proposalHash: b?.proposalHash, input: { accept: false } });
      assert.equal(declinedB.body.data.status, 'running');
      const done = await c.waitFor(runB.runId, ['completed']);
      assert.equal(done.steps.find((s) => s.name === 'generate_image')?.input.model, 'nano-banana-2');
    });

    test('rule 8: after a confirmed failure (its hold released) the next fallback model takes over', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Fallback', settings: { fallbackModelIds: ['gpt-5.4', 'claude-haiku-4-5'] } });
      ctx.orchestrator.plan(conversationId, { error: { status: 500, message: 'boom' } }, { error: { status: 503, message: 'busy' } }, { text: 'Third time lucky.' });
      const run = await c.send(conversationId, 'hello');
      const done = await c.waitFor(run.runId, ['completed']);
      const models = done.steps.filter((s) => s.kind === 'model').map((s) => [s.name, s.status]);
      assert.deepEqual(models, [
        ['gpt-5.4-mini', 'failed'],
        ['gpt-5.4', 'failed'],
        ['claude-haiku-4-5', 'completed'],
      ]);
      const chats = done.costs.operations.filter((o) => o.kind === 'chat');
      assert.deepEqual(chats.slice(-3).map((o) => [o.model, o.state, o.costMicroUsd]).slice(0, 2), [
        ['gpt-5.4-mini', 'released', '0'],
        ['gpt-5.4', 'released', '0'],
      ]);
      assert.equal(done.orchestratorModelId, 'claude-haiku-4-5');

      const conv2 = await c.conversation({ title: 'All fail' });
      ctx.orchestrator.plan(conv2, { error: { status: 500 } });
      const failed = await c.waitFor((await c.send(conv2, 'hello')).runId, ['failed']);
      assert.equal(failed.error?.code, 'orchestrator_unavailable');
      await assertBooksBalance(ctx.gw);
    });
  },
);
