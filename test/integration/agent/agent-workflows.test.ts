/**
 * Workflows (SPEC rule 14): the built-in recipes with versions, input schemas and graphs; input
 * checked before anything is written; a run that carries one out node by node, asking for a missing
 * required input, passing a node's artifacts to the nodes that depend on it, and completing with
 * every node's files.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

interface WorkflowView {
  workflowId: string;
  version: number;
  versions: number[];
  inputSchema: { required: string[]; properties: Record<string, unknown> };
  graph?: { nodes: Array<{ id: string; tool: string; dependsOn: string[] }> };
}

describeAgent(
  'agent workflows',
  (ctx) => {
    test('the catalogue of workflows: versions, input schemas and graphs', async () => {
      const c = await agentClient(ctx.gw);
      const list = (await c.call('GET', '/api/v1/agent/workflows')).body.data as unknown as WorkflowView[];
      assert.deepEqual(list.map((w) => w.workflowId).sort(), ['cover-plus-music', 'product-cards', 'script-to-video']);
      const cards = (await c.call('GET', '/api/v1/agent/workflows/product-cards')).body.data as unknown as WorkflowView;
      assert.deepEqual(cards.inputSchema.required, ['productName', 'description']);
      assert.deepEqual(cards.graph?.nodes.map((n) => [n.id, n.dependsOn]), [['hero', []], ['card', ['hero']], ['detail', ['hero']]]);
      assert.deepEqual(cards.versions, [1]);
      assert.equal((await c.call('GET', '/api/v1/agent/workflows/product-cards?version=9')).status, 404);
      assert.equal((await c.call('GET', '/api/v1/agent/workflows/nope')).status, 404);
    });

    test('a workflow message is checked before anything is written: unknown workflow or version, wrong or unknown input', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Checks' });
      const path = `/api/v1/agent/conversations/${conversationId}/messages`;
      for (const [body, param] of [
        [{ workflowId: 'nope' }, 'workflowId'],
        [{ workflowId: 'product-cards', workflowVersion: 2 }, 'workflowVersion'],
        [{ workflowId: 'product-cards', workflowInput: { productName: 5 } }, 'workflowInput.productName'],
        [{ workflowId: 'product-cards', workflowInput: { colour: 'red' } }, 'workflowInput.colour'],
        [{ workflowId: 'script-to-video', workflowInput: { script: 'x', durationSeconds: 99 } }, 'workflowInput.durationSeconds'],
        [{ workflowInput: { script: 'x' } }, 'workflowId'],
      ] as const) {
        const res = await c.call('POST', path, { content: [{ type: 'text', text: 'go' }], ...body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error?.param, param, JSON.stringify(res.body));
      }
      assert.equal(((await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`)).body.data as unknown as { items: unknown[] }).items.length, 0);
    });

    test('cover plus music: every node dispatched once, without the orchestrator, and the run completes with their files', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Cover' });
      const accepted = await c.send(conversationId, 'make it', { workflowId: 'cover-plus-music', workflowVersion: '1', workflowInput: { title: 'Night Drive', mood: 'calm neon city at night', genre: 'synthwave' } });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const nodes = run.steps.filter((s) => s.kind === 'tool');
      assert.deepEqual(nodes.map((s) => [s.name, (s.output as { status: string }).status]), [
        ['generate_image', 'succeeded'],
        ['generate_music', 'succeeded'],
      ]);
      const result = await c.result(accepted.runId);
      assert.ok(result.artifacts.length >= 2);
      assert.match(String(result.mainOutcome?.text), /^Cover plus music \(version 1\): 2 of 2 made\./);
      assert.equal(ctx.orchestrator.callsFor(conversationId).length, 0, 'the recipe needs no orchestrator turn');
      await assertBooksBalance(ctx.gw);
    });

    test('a missing required input pauses the run for clarification; the answer fills it; a node gets its dependency\'s artifact', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Script' });
      const accepted = await c.send(conversationId, 'a clip please', { workflowId: 'script-to-video', workflowInput: { durationSeconds: 5 } });
      const waiting = await c.waitFor(accepted.runId, ['waiting_for_clarification']);
      const question = waiting.pendingActions[0];
      assert.match(String(question?.question), /Script to video needs script/);
      assert.equal(waiting.steps.filter((s) => s.name === 'generate_image').length, 0, 'nothing dispatched before the input is complete');
      await c.send(conversationId, 'A paper boat drifts down a rainy street.', { replyToRunId: accepted.runId, questionId: question?.pendingActionId });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const video = run.steps.find((s) => s.name === 'generate_video');
      assert.equal((video?.output as { status?: string } | undefined)?.status, 'succeeded', JSON.stringify(video?.output));
      const input = (video?.input as { arguments?: { prompt?: string; referenceArtifactIds?: string[] } } | undefined)?.arguments;
      assert.equal(input?.prompt, 'A paper boat drifts down a rainy street.');
      const keyframe = (await c.result(accepted.runId)).artifacts.find((a) => a.type === 'image');
      assert.deepEqual(input?.referenceArtifactIds, [keyframe?.artifactId]);
      await assertBooksBalance(ctx.gw);
    });
  },
  { protocols: ['openai'] },
);
