import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeEachMode } from '../../support/gateway.ts';

const orchestrator = await ScriptedOrchestrator.start('openai');
after(() => orchestrator.close());

describeEachMode(
  'an agent run end to end',
  (ctx) => {
    test('the model calls generate_image, the task runs at its normal tariff, the run completes with the artifact', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a red fox in the snow' } }] }, { text: 'Here is your fox.' });
      const accepted = await c.send(conversationId, 'make an image of a red fox in the snow');
      assert.equal(accepted.status, 'running');
      const run = await c.waitFor(accepted.runId, ['completed']);
      assert.equal(run.error, null);
      const result = await c.result(accepted.runId);
      assert.equal(result.mainOutcome?.text, 'Here is your fox.');
      assert.equal(result.artifacts.length, 1);
      const artifact = result.artifacts[0];
      assert.ok(artifact?.generationId?.startsWith('task_'));
      assert.equal(artifact?.outputIndex, 0);
      assert.deepEqual(result.mainOutcome?.artifactIds, [artifact?.artifactId]);

      const fetched = await c.call('GET', `/api/v1/agent/artifacts/${artifact?.artifactId}`);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.data.generationId, artifact?.generationId);
      const image = await fetch(artifact?.url ?? '');
      assert.equal(image.status, 200);
      assert.match(image.headers.get('content-type') ?? '', /^image\//);

      // The generation is an ordinary one: in the user's list, at the catalog's price.
      const generations = await c.call('GET', '/api/v1/generations');
      const items = generations.body.data.items as Array<{ taskId: string; costMicroUsd: string; model: string }>;
      const task = items.find((t) => t.taskId === artifact?.generationId);
      assert.equal(task?.model, 'nano-banana-2');
      const estimate = await c.call('POST', '/api/v1/generation/estimate', { model: 'nano-banana-2', input: { prompt: 'a red fox in the snow' } });
      assert.equal(task?.costMicroUsd, String((estimate.body as unknown as { cost: number }).cost));

      // The run's books: settled = the sum of its operations, nothing committed.
      const ops = run.costs.operations;
      assert.deepEqual(ops.map((o) => [o.kind, o.state]), [
        ['chat', 'settled'],
        ['chat', 'settled'],
        ['generation', 'settled'],
        ['chat', 'settled'],
      ]);
      const sum = ops.reduce((n, o) => n + Number(o.costMicroUsd), 0);
      assert.equal(run.budget.settledMicroUsd, String(sum));
      assert.equal(run.budget.committedMicroUsd, '0');
      await assertBooksBalance(ctx.gw);
    });
  },
  {
    configFile: {
      providers: { orch: orchestrator.provider() },
      routes: { 'gpt-5.4-mini': ['orch'] },
    },
  },
);
