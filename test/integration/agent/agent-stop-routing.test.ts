/**
 * Rules 7, 9 and 10: stop (an accepted provider operation finishes and is charged; a text request is
 * cancelled), settings per storefront with a snapshot per run and pinned models, and a selected text
 * model without a verified tool-calling route waiting for consent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentClient, assertBooksBalance, withHost } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const image = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'generate_image', arguments: args }] });
const ask = (question: string) => ({ toolCalls: [{ name: 'ask_clarification', arguments: { question } }] });

describeAgent(
  'agent stop, settings and routing',
  (ctx) => {
    test('rule 7: a stop lets the accepted generation finish and be charged, then the run is cancelled; nothing else is dispatched', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Stop' });
      ctx.orchestrator.plan(conversationId, image({ prompt: 'slow', model: 'z-image-turbo' }), image({ prompt: 'never' }));
      const run = await c.send(conversationId, 'two images');
      await c.waitFor(run.runId, ['waiting_for_media']);
      const stop = await c.call('POST', `/api/v1/agent/runs/${run.runId}/stop`);
      assert.equal(stop.body.data.status, 'stopping');
      const stopping = await c.run(run.runId);
      assert.equal(stopping.costs.operations.find((o) => o.kind === 'generation')?.state, 'committed');
      const done = await c.waitFor(run.runId, ['cancelled'], 20_000);
      const generation = done.costs.operations.filter((o) => o.kind === 'generation');
      assert.deepEqual(generation.map((o) => [o.state, o.costMicroUsd]), [['settled', '10000']]);
      assert.equal(ctx.orchestrator.callsFor(conversationId).length, 1);
      const task = await c.call('GET', `/api/v1/task/status/${generation[0]?.generationId}`);
      assert.equal(task.body.data.status, 'finished');
      await assertBooksBalance(ctx.gw);
    });

    test('rule 7: a stop cancels the text request in flight; what it used is settled', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Stop text' });
      ctx.orchestrator.plan(conversationId, { text: 'a slow answer that will be cut', delayMs: 3000 });
      const run = await c.send(conversationId, 'talk slowly');
      await c.waitFor(run.runId, ['running']);
      await new Promise((r) => setTimeout(r, 400));
      await c.call('POST', `/api/v1/agent/runs/${run.runId}/stop`);
      const done = await c.waitFor(run.runId, ['cancelled'], 10_000);
      // A call waited for would have ended its step with the answer (succeeded, and charged).
      assert.equal(done.steps.find((s) => s.kind === 'model')?.status, 'cancelled', 'the call was cancelled, not waited for');
      assert.equal(done.budget.committedMicroUsd, '0');
      await assertBooksBalance(ctx.gw);
    });

    test('rule 9: settings per storefront; each run keeps its snapshot; a pinned model stays; an explicit request wins', async () => {
      const c = await agentClient(ctx.gw);
      const saved = await c.call('PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { imageModelId: 'z-image-turbo' } });
      assert.equal(saved.status, 200);
      const other = await withHost(ctx.gw.url, 'shop2.test', c.key, 'GET', '/api/v1/agent/settings');
      assert.equal(other.body.data.version, 0);
      assert.equal((other.body.data.settings as { imageModelId: string }).imageModelId, 'nano-banana-2');
      const elsewhere = await withHost(ctx.gw.url, 'shop2.test', c.key, 'POST', '/api/v1/agent/conversations', {});
      const foreignId = elsewhere.body.data.conversationId as string;
      assert.equal((await c.call('GET', `/api/v1/agent/conversations/${foreignId}`)).status, 404);
      assert.equal((await withHost(ctx.gw.url, 'SHOP2.test:80', c.key, 'GET', `/api/v1/agent/conversations/${foreignId}`)).status, 200);

      // A run accepted now keeps z-image-turbo even after the settings change.
      const conversationId = await c.conversation({ title: 'Snapshot' });
      ctx.orchestrator.plan(conversationId, ask('Ready?'), image({ prompt: 'kept' }), image({ prompt: 'explicit', model: 'qwen-image' }), { text: 'ok' });
      const run = await c.send(conversationId, 'go');
      const waiting = await c.waitFor(run.runId, ['waiting_for_clarification']);
      const changed = await c.call('PUT', '/api/v1/agent/settings', { expectedVersion: 1, settings: { imageModelId: 'nano-banana-pro' } });
      assert.equal(changed.status, 200);
      await c.send(conversationId, 'yes', { replyToRunId: run.runId, questionId: waiting.pendingActions[0]?.questionId });
      const done = await c.waitFor(run.runId, ['completed']);
      const models = done.steps.filter((s) => s.name === 'generate_image').map((s) => s.input.model);
      assert.deepEqual(models, ['z-image-turbo', 'qwen-image']);

      // Manual mode pins the selected image model: another one is refused to the model, with the way out.
      const manual = await c.conversation({ mode: 'manual', selectedModelId: 'z-image-turbo' });
      ctx.orchestrator.plan(manual, image({ prompt: 'x', model: 'nano-banana-2' }), image({ prompt: 'y' }), { text: 'pinned' });
      const pinned = await c.waitFor((await c.send(manual, 'an image')).runId, ['completed']);
      const tools = pinned.steps.filter((s) => s.name === 'generate_image');
      const refused = tools[0]?.output as { status: string; error: string } | undefined;
      assert.equal(refused?.status, 'refused');
      assert.match(String(refused?.error), /pinned.*propose_model_change/);
      assert.equal(tools[1]?.input.model, 'z-image-turbo');
    });

    test('rule 9: when the inputs do not fit the default, another model is chosen and the result says why', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Fit', settings: { imageModelId: 'z-image-turbo' } });
      ctx.orchestrator.plan(conversationId, image({ prompt: 'first' }), (body) => {
        const id = /art_[0-9a-z]{26}/.exec(JSON.stringify(body))?.[0];
        return image({ prompt: 'same style', referenceArtifactIds: [id] });
      }, { text: 'both done' });
      const done = await c.waitFor((await c.send(conversationId, 'two related images')).runId, ['completed']);
      const second = done.steps.filter((s) => s.name === 'generate_image')[1];
      assert.notEqual(second?.input.model, 'z-image-turbo');
      assert.match(JSON.stringify(second?.input.notes), /z-image-turbo takes at most 0 reference/);
    });

    test('rule 10: a selected text model without a verified tool-calling route waits for consent, never drops its tools', async () => {
      const c = await agentClient(ctx.gw);
      ctx.orchestrator.failCapability('deepseek-v4-flash', 'tools');
      const conversationId = await c.conversation({ mode: 'manual', selectedModelId: 'deepseek-v4-flash' });
      ctx.orchestrator.plan(conversationId, { text: 'answered by the approved model' });
      const run = await c.send(conversationId, 'make an image');
      const waiting = await c.waitFor(run.runId, ['waiting_for_model_approval']);
      assert.equal(waiting.waitReason, 'tool_route_consent');
      const proposal = waiting.pendingActions[0];
      assert.equal(proposal?.proposal?.fromModelId, 'deepseek-v4-flash');
      assert.equal(proposal?.proposal?.toModelId, 'gpt-5.4-mini');
      assert.equal(ctx.orchestrator.callsFor(conversationId).length, 0, 'no chat without tools');
      const models = await c.call('GET', '/api/v1/agent/models');
      const deepseek = (models.body.data as unknown as Array<{ id: string; capabilities: { tools: string } }>).find((m) => m.id === 'deepseek-v4-flash');
      assert.equal(deepseek?.capabilities.tools, 'failed');
      const accepted = await c.call(
        'POST',
        `/api/v1/agent/runs/${run.runId}/decisions`,
        { pendingActionId: proposal?.pendingActionId, version: proposal?.version, proposalHash: proposal?.proposalHash, input: { accept: true } },
        { 'idempotency-key': 'consent' },
      );
      assert.equal(accepted.status, 200);
      const done = await c.waitFor(run.runId, ['completed']);
      assert.equal(done.steps.find((s) => s.kind === 'model')?.name, 'gpt-5.4-mini');

      const declinedConv = await c.conversation({ mode: 'manual', selectedModelId: 'deepseek-v4-flash' });
      const run2 = await c.send(declinedConv, 'again');
      const w2 = await c.waitFor(run2.runId, ['waiting_for_model_approval']);
      const p2 = w2.pendingActions[0];
      await c.call('POST', `/api/v1/agent/runs/${run2.runId}/decisions`, { pendingActionId: p2?.pendingActionId, version: p2?.version, proposalHash: p2?.proposalHash, input: { accept: false } }, { 'idempotency-key': 'no' });
      const failed = await c.waitFor(run2.runId, ['failed']);
      assert.equal(failed.error?.code, 'model_capability_unavailable');
    });
  },
  {
    config: () => ({
      providers: { slowmedia: { type: 'local', options: { latencyMs: 1500 } } },
      routes: { 'z-image-turbo': ['slowmedia'], 'deepseek-v4-flash': ['orch'] },
      storefronts: { main: {}, shop2: { hosts: ['shop2.test'] } },
    }),
  },
);
