/**
 * Rules 1–4 and 19 of SPEC's agent section, driven by the scripted orchestrator in both protocols and
 * both modes: one active run and clientMessageId idempotency, follow-ups, steering, clarification
 * replies, and generated titles.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const ask = (question: string) => ({ toolCalls: [{ name: 'ask_clarification', arguments: { question } }] });

describeAgent(
  'agent messages',
  (ctx) => {
    test('rule 1: one active run; a clientMessageId retry replays, another body is a conflict', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Busy' });
      ctx.orchestrator.plan(conversationId, ask('Which colour?'));
      const body = { clientMessageId: 'cm-1', content: [{ type: 'text', text: 'a poster' }] };
      const first = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, body);
      assert.equal(first.status, 200);
      const again = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, body);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, first.body.data);
      const other = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { ...body, content: [{ type: 'text', text: 'something else' }] });
      assert.equal(other.status, 409);
      assert.equal(other.body.error?.code, 'idempotency_key_reused');
      const runId = first.body.data.runId as string;
      await c.waitFor(runId, ['waiting_for_clarification']);
      const busy = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'and another task' }] });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error?.code, 'conversation_busy');
      // Exactly one run was created for the retried message.
      const created = (await c.events(conversationId)).filter((e) => e.type === 'run.created');
      assert.equal(created.length, 1);
      await c.call('POST', `/api/v1/agent/runs/${runId}/stop`);
      await c.waitFor(runId, ['cancelled']);
    });

    test('rule 2: follow-ups queue (at most 20), run in order and see the earlier answers', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Queue' });
      ctx.orchestrator.plan(conversationId, ask('Ready?'), { text: 'Answer one' }, { text: 'Answer two' });
      const first = await c.send(conversationId, 'first task');
      await c.waitFor(first.runId, ['waiting_for_clarification']);
      const queued = [];
      for (let i = 0; i < 20; i++) queued.push(await c.send(conversationId, `follow-up ${i + 2}`, { deliveryMode: 'followup' }));
      assert.deepEqual(queued.map((q) => q.status), Array(20).fill('queued'));
      assert.deepEqual(queued.map((q) => q.queuePosition), Array.from({ length: 20 }, (_, i) => i + 1));
      const full = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'one too many' }], deliveryMode: 'followup' });
      assert.equal(full.status, 409);
      assert.equal(full.body.error?.code, 'followup_queue_full');
      // Cancel all but the first follow-up, one by one.
      for (const q of queued.slice(1)) {
        const stopped = await c.call('POST', `/api/v1/agent/runs/${q.runId}/stop`);
        assert.equal(stopped.body.data.status, 'cancelled');
      }
      const question = (await c.run(first.runId)).pendingActions[0];
      await c.send(conversationId, 'yes', { replyToRunId: first.runId, questionId: question?.questionId });
      await c.waitFor(first.runId, ['completed']);
      const second = queued[0];
      assert.ok(second);
      await c.waitFor(second.runId, ['completed']);
      assert.equal((await c.result(second.runId)).mainOutcome?.text, 'Answer two');
      // The follow-up's model saw the first run's request and answer before its own request.
      const calls = ctx.orchestrator.callsFor(conversationId);
      const last = JSON.stringify(calls.at(-1));
      assert.ok(last.indexOf('first task') < last.indexOf('Answer one') && last.indexOf('Answer one') < last.indexOf('follow-up 2'), last);
      await assertBooksBalance(ctx.gw);
    });

    test('rule 3: steering only when canSteer, applied at the next step boundary with the same limit', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Steer' });
      ctx.orchestrator.plan(conversationId, ask('Square or wide?'));
      const run = await c.send(conversationId, 'a banner', { maxCostMicroUsd: '900000' });
      let view = await c.waitFor(run.runId, ['waiting_for_clarification']);
      assert.equal(view.canSteer, false);
      const refused = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'blue please' }], deliveryMode: 'steer' });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error?.code, 'steer_not_allowed');
      // While its (slow) image is being made, the run can be steered.
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a banner', model: 'z-image-turbo' } }] }, { text: 'Banner done.' });
      await c.send(conversationId, 'wide', { replyToRunId: run.runId, questionId: view.pendingActions[0]?.questionId });
      view = await c.waitFor(run.runId, ['waiting_for_media']);
      assert.equal(view.canSteer, true);
      const steer = await c.send(conversationId, 'make it blue', { deliveryMode: 'steer' });
      assert.equal(steer.runId, run.runId);
      const withLimit = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], deliveryMode: 'steer', maxCostMicroUsd: '5' });
      assert.equal(withLimit.status, 400);
      view = await c.waitFor(run.runId, ['completed']);
      assert.equal(view.budget.limitMicroUsd, '900000');
      const kinds = view.steps.map((s) => s.kind);
      assert.ok(kinds.indexOf('steer') > kinds.indexOf('tool'), kinds.join());
      const last = JSON.stringify(ctx.orchestrator.callsFor(conversationId).at(-1));
      assert.match(last, /make it blue/);
    });

    test('rule 4: a clarification reply continues the run with its limit; a wrong question is refused', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Ask' });
      ctx.orchestrator.plan(conversationId, ask('For which product?'), (body) => {
        const text = JSON.stringify(body);
        return { text: text.includes('the blue mug') ? 'Got it: the blue mug.' : 'No answer seen.' };
      });
      const run = await c.send(conversationId, 'a product shot', { maxCostMicroUsd: '750000' });
      const view = await c.waitFor(run.runId, ['waiting_for_clarification']);
      const question = view.pendingActions[0];
      assert.equal(question?.kind, 'question');
      assert.equal(question?.question, 'For which product?');
      const wrong = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], replyToRunId: run.runId, questionId: 'act_nope' });
      assert.equal(wrong.status, 409);
      assert.equal(wrong.body.error?.code, 'question_not_pending');
      const otherLimit = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
        content: [{ type: 'text', text: 'x' }],
        replyToRunId: run.runId,
        questionId: question?.questionId,
        maxCostMicroUsd: '999',
      });
      assert.equal(otherLimit.status, 400);
      const reply = await c.send(conversationId, 'the blue mug', { replyToRunId: run.runId, questionId: question?.questionId });
      assert.equal(reply.runId, run.runId);
      const done = await c.waitFor(run.runId, ['completed']);
      assert.equal(done.budget.limitMicroUsd, '750000');
      assert.equal((await c.result(run.runId)).mainOutcome?.text, 'Got it: the blue mug.');
      const again = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'late' }], replyToRunId: run.runId, questionId: question?.questionId });
      assert.equal(again.status, 409);
    });

    test('rule 19: an unnamed conversation in automatic mode gets a generated title; named and manual ones do not', async () => {
      const c = await agentClient(ctx.gw);
      const unnamed = await c.conversation();
      const named = await c.conversation({ title: 'My title' });
      const manual = await c.conversation({ mode: 'manual', selectedModelId: 'gpt-5.4-mini' });
      for (const id of [unnamed, named, manual]) {
        const run = await c.send(id, 'a 5 second video of waves');
        await c.waitFor(run.runId, ['completed']);
      }
      const get = async (id: string) => (await c.call('GET', `/api/v1/agent/conversations/${id}`)).body.data;
      assert.deepEqual([(await get(unnamed)).title, (await get(unnamed)).titleSource], ['Scripted title', 'generated']);
      assert.deepEqual([(await get(named)).title, (await get(named)).titleSource], ['My title', 'user']);
      assert.equal((await get(manual)).title, null);
      assert.ok((await c.events(unnamed)).some((e) => e.type === 'conversation.updated' && e.data.title === 'Scripted title'));
    });
  },
  {
    config: () => ({
      providers: { slowmedia: { type: 'local', options: { latencyMs: 1500 } } },
      routes: { 'z-image-turbo': ['slowmedia'] },
    }),
  },
);
