/**
 * Subtasks (SPEC rule 16): at most two per request, each within a third of the run's limit and 60
 * seconds, on the run's current orchestrator model, seeing only the context given, answering text;
 * their charges count toward the run's limit; stopping the run stops them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const subtask = (instructions: string, context?: string) => ({ toolCalls: [{ name: 'run_subtask', arguments: { instructions, ...(context ? { context } : {}) } }] });

describeAgent(
  'agent subtasks',
  (ctx) => {
    test('a subtask answers text from the context it was given; a third one is refused; its charge counts toward the run', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Subtasks' });
      ctx.orchestrator.plan(
        conversationId,
        subtask('Write three shot ideas for a mug advert.', 'The mug is blue and ceramic.'),
        subtask('Summarize the shots in one line.', 'shots: a, b, c'),
        subtask('One more?'),
        { text: 'Planned.' },
      );
      const accepted = await c.send(conversationId, 'plan a mug advert');
      const run = await c.waitFor(accepted.runId, ['completed']);
      const subtasks = run.steps.filter((s) => s.kind === 'subtask');
      assert.equal(subtasks.length, 2);
      assert.ok(subtasks.every((s) => s.status === 'completed' && Number(s.costMicroUsd) > 0), JSON.stringify(subtasks));
      const results = run.steps.filter((s) => s.name === 'run_subtask');
      assert.deepEqual(results.map((s) => (s.output as { status: string }).status), ['succeeded', 'succeeded', 'refused']);
      assert.match(String((results[2]?.output as { error?: string } | undefined)?.error), /at most 2 subtasks/);
      // The helper saw only its instructions and context, not the conversation or the tools.
      const helperRequests = ctx.orchestrator.requests.filter((r) => JSON.stringify(r.body).includes('You are a subtask of an agent'));
      assert.equal(helperRequests.length, 2);
      const first = JSON.stringify(helperRequests[0]?.body);
      assert.match(first, /The mug is blue and ceramic\./);
      assert.doesNotMatch(first, /plan a mug advert|generate_image/);
      const settled = run.costs.operations.filter((o) => o.kind === 'chat' && o.state === 'settled').reduce((sum, o) => sum + Number(o.costMicroUsd), 0);
      assert.equal(settled, Number(run.budget.settledMicroUsd), 'every charge, subtasks included, counts toward the run');
      await assertBooksBalance(ctx.gw);
    });

    test('a subtask that would need more than a third of the limit is refused before anything is held', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Small limit' });
      ctx.orchestrator.plan(conversationId, subtask('x'.repeat(7_000), 'y'.repeat(39_000)), { text: 'Alone.' });
      const accepted = await c.send(conversationId, 'think hard', { maxCostMicroUsd: '60000' });
      const run = await c.waitFor(accepted.runId, ['completed', 'waiting_for_budget']);
      const result = run.steps.find((s) => s.name === 'run_subtask');
      assert.equal((result?.output as { status?: string } | undefined)?.status, 'refused', JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status])));
      assert.match(String((result?.output as { error?: string } | undefined)?.error), /third of this run's limit/);
      assert.equal(run.steps.filter((s) => s.kind === 'subtask').length, 0);
    });

    test('stopping the run stops its subtask', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Stopped subtask' });
      ctx.orchestrator.plan(conversationId, subtask('Take your time.'), { text: 'never' });
      // The helper's answer is slow: the run is stopped while it waits.
      ctx.orchestrator.answerWhen('Take your time.', { text: 'late', delayMs: 30_000 });
      const accepted = await c.send(conversationId, 'slow thinking');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const view = await c.run(accepted.runId);
        if (view.steps.some((s) => s.kind === 'subtask' && s.status === 'running')) break;
        assert.ok(Date.now() < deadline, 'the subtask started');
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal((await c.call('POST', `/api/v1/agent/runs/${accepted.runId}/stop`)).status, 200);
      const stopped = await c.waitFor(accepted.runId, ['cancelled'], 20_000);
      const step = stopped.steps.find((s) => s.kind === 'subtask');
      assert.notEqual(step?.status, 'completed');
      assert.equal(stopped.costs.operations.filter((o) => o.kind === 'chat' && o.state === 'committed').length, 0, 'no hold left open');
      await assertBooksBalance(ctx.gw);
    });
  },
  { protocols: ['openai'] },
);
