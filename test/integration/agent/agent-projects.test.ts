/**
 * Brand projects (SPEC "Agent resources": Project; rule 9; versioning): create, list, read, update by
 * expectedVersion into immutable versions, isolation; project model defaults over the user's and an
 * explicit request over both; a run keeps the project version it started with; project-scoped
 * conversations and webhook destinations.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, withHost } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import { webhookReceiverForFile } from '../../support/webhook-receiver.ts';

interface ProjectView {
  projectId: string;
  version: number;
  name: string;
  instructions: string;
  brand: { name: string | null; voice: string | null; colors: string[]; logoAssetId: string | null };
  modelDefaults: Record<string, string | null>;
}

const receiver = webhookReceiverForFile();

function systemPromptOf(body: Record<string, unknown> | undefined): string {
  const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return String(messages.find((m) => m.role === 'system')?.content ?? '');
}

async function createProject(c: AgentClient, body: Record<string, unknown>): Promise<ProjectView> {
  const res = await c.call('POST', '/api/v1/agent/projects', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as unknown as ProjectView;
}

async function generationModels(c: AgentClient, runId: string): Promise<string[]> {
  const view = await c.run(runId);
  return view.costs.operations.filter((o) => o.kind === 'generation').map((o) => o.model);
}

describeAgent(
  'agent projects',
  (ctx) => {
    test('create, read, list, update by version into immutable versions; stale versions and bad fields refused', async () => {
      const c = await agentClient(ctx.gw);
      const project = await createProject(c, {
        name: 'Acme',
        instructions: 'Always show the product on white.',
        brand: { name: 'Acme Co', voice: 'Warm and short.', colors: ['#ff0000', '#00AA00'] },
        modelDefaults: { imageModelId: 'z-image-turbo' },
      });
      assert.equal(project.version, 1);
      assert.deepEqual(project.brand.colors, ['#FF0000', '#00AA00']);
      assert.equal(project.modelDefaults.imageModelId, 'z-image-turbo');
      const updated = await c.call('PATCH', `/api/v1/agent/projects/${project.projectId}`, { expectedVersion: 1, instructions: 'Use a dark background.' });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal((updated.body.data as unknown as ProjectView).version, 2);
      assert.equal((updated.body.data as unknown as ProjectView).brand.name, 'Acme Co', 'unchanged fields stay');
      const stale = await c.call('PATCH', `/api/v1/agent/projects/${project.projectId}`, { expectedVersion: 1, instructions: 'again' });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error?.code, 'version_conflict');
      assert.equal((await c.call('PATCH', `/api/v1/agent/projects/${project.projectId}`, { instructions: 'no version' })).status, 400);
      const badColor = await c.call('POST', '/api/v1/agent/projects', { name: 'x', brand: { colors: ['red'] } });
      assert.equal(badColor.status, 400);
      assert.match(String(badColor.body.error?.param), /brand\.colors/);
      const badModel = await c.call('POST', '/api/v1/agent/projects', { name: 'x', modelDefaults: { imageModelId: 'sora-2' } });
      assert.equal(badModel.status, 400);
      assert.equal((await c.call('POST', '/api/v1/agent/projects', { name: 'x', unknown: 1 })).status, 400);

      const v1 = await c.call('GET', `/api/v1/agent/projects/${project.projectId}/versions/1`);
      assert.equal(v1.status, 200);
      assert.equal((v1.body.data as unknown as ProjectView).instructions, 'Always show the product on white.', 'version 1 never changes');
      const versions = await c.call('GET', `/api/v1/agent/projects/${project.projectId}/versions`);
      assert.deepEqual((versions.body.data.items as ProjectView[]).map((v) => v.version), [2, 1]);
      const list = await c.call('GET', '/api/v1/agent/projects');
      assert.deepEqual((list.body.data.items as ProjectView[]).map((p) => p.projectId), [project.projectId]);
    });

    test('another user, or another storefront, does not see the project', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const project = await createProject(c, { name: 'Mine' });
      assert.equal((await other.call('GET', `/api/v1/agent/projects/${project.projectId}`)).status, 404);
      assert.equal((await other.call('PATCH', `/api/v1/agent/projects/${project.projectId}`, { expectedVersion: 1, name: 'theirs' })).status, 404);
      const conv = await other.call('POST', '/api/v1/agent/conversations', { projectId: project.projectId });
      assert.equal(conv.status, 400);
      assert.equal(conv.body.error?.param, 'projectId');
      const hook = await other.call('POST', '/api/v1/agent/webhooks', { url: 'https://example.com/hook', eventTypes: ['run.completed'], scope: 'project', scopeId: project.projectId });
      assert.equal(hook.status, 400);
      assert.equal((await withHost(ctx.gw.url, 'shop2.example.com', c.key, 'GET', `/api/v1/agent/projects/${project.projectId}`)).status, 404);
      const mine = await c.call('POST', '/api/v1/agent/webhooks', { url: 'https://example.com/hook', eventTypes: ['run.completed'], scope: 'project', scopeId: project.projectId });
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
    });

    test('rule 9: project media defaults over the user\'s, an explicit request over both', async () => {
      const c = await agentClient(ctx.gw);
      const project = await createProject(c, { name: 'Defaults', modelDefaults: { imageModelId: 'z-image-turbo' } });
      const inProject = await c.conversation({ projectId: project.projectId });
      const outside = await c.conversation();
      const explicit = await c.conversation({ projectId: project.projectId });
      ctx.orchestrator.plan(inProject, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a mug' } }] }, { text: 'ok' });
      ctx.orchestrator.plan(outside, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a mug' } }] }, { text: 'ok' });
      ctx.orchestrator.plan(explicit, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a mug', model: 'nano-banana-2' } }] }, { text: 'ok' });
      const runs = [await c.send(inProject, 'a mug'), await c.send(outside, 'a mug'), await c.send(explicit, 'a mug with nano banana')];
      for (const run of runs) await c.waitFor(run.runId, ['completed']);
      const [a, b, e] = runs;
      assert.deepEqual(await generationModels(c, a?.runId ?? ''), ['z-image-turbo']);
      assert.notDeepEqual(await generationModels(c, b?.runId ?? ''), ['z-image-turbo'], 'outside the project the user default applies');
      assert.deepEqual(await generationModels(c, e?.runId ?? ''), ['nano-banana-2']);
      const listed = await c.call('GET', `/api/v1/agent/conversations?projectId=${project.projectId}`);
      assert.deepEqual(new Set((listed.body.data.items as Array<{ conversationId: string }>).map((x) => x.conversationId)), new Set([inProject, explicit]));
    });

    test('a run keeps the project version it started with; the next run gets the new one', async () => {
      const c = await agentClient(ctx.gw);
      const project = await createProject(c, { name: 'Versions', instructions: 'VERSION-ONE-RULES', brand: { voice: 'calm' } });
      const conversationId = await c.conversation({ projectId: project.projectId });
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'ask_clarification', arguments: { question: 'Which colour?' } }] }, { text: 'done' }, { text: 'second run' });
      const first = await c.send(conversationId, 'make a poster');
      await c.waitFor(first.runId, ['waiting_for_clarification']);
      const patched = await c.call('PATCH', `/api/v1/agent/projects/${project.projectId}`, { expectedVersion: 1, instructions: 'VERSION-TWO-RULES' });
      assert.equal(patched.status, 200);
      const question = (await c.run(first.runId)).pendingActions[0];
      await c.send(conversationId, 'blue', { replyToRunId: first.runId, questionId: question?.questionId });
      await c.waitFor(first.runId, ['completed']);
      const calls = ctx.orchestrator.callsFor(conversationId);
      assert.equal(calls.length, 2);
      for (const call of calls) {
        const system = systemPromptOf(call);
        assert.ok(system.includes('VERSION-ONE-RULES'), 'every step of the first run sees version 1');
        assert.ok(!system.includes('VERSION-TWO-RULES'));
        assert.ok(system.includes('Brand voice: calm'));
      }
      const view = (await c.call('GET', `/api/v1/agent/runs/${first.runId}`)).body.data as { project: { projectId: string; version: number } | null };
      assert.deepEqual(view.project, { projectId: project.projectId, version: 1 });
      const second = await c.send(conversationId, 'another');
      await c.waitFor(second.runId, ['completed']);
      assert.ok(systemPromptOf(ctx.orchestrator.callsFor(conversationId)[2]).includes('VERSION-TWO-RULES'));
    });

    test('a project-scoped webhook destination receives the events of the project\'s conversations only', async () => {
      const url = receiver.url('project-hook');
      const received = () => receiver.at(url).map((r) => JSON.parse(r.body) as { type: string; data: { conversationId?: string; runId?: string } });
      const c = await agentClient(ctx.gw);
      const project = await createProject(c, { name: 'Hooked' });
      const hook = await c.call('POST', '/api/v1/agent/webhooks', { url, eventTypes: ['run.completed'], scope: 'project', scopeId: project.projectId });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      const inside = await c.conversation({ projectId: project.projectId });
      const outside = await c.conversation();
      const a = await c.send(inside, 'inside the project');
      const b = await c.send(outside, 'outside the project');
      await c.waitFor(a.runId, ['completed']);
      await c.waitFor(b.runId, ['completed']);
      const deadline = Date.now() + 15_000;
      while (received().length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        received().map((e) => [e.type, e.data.runId]),
        [['run.completed', a.runId]],
      );
      // Deleting the project revokes the destination: its conversations' events stop reaching it.
      assert.equal((await c.call('DELETE', `/api/v1/agent/projects/${project.projectId}`)).status, 200);
      const row = await ctx.gw.gateway.services.database.db.selectFrom('agent_webhooks').select('revoked_at').where('id', '=', hook.body.data.webhookId as string).executeTakeFirst();
      assert.notEqual(row?.revoked_at ?? null, null);
    });
  },
  { protocols: ['openai'], config: () => ({ storefronts: { main: {}, shop2: { hosts: ['shop2.example.com'] } } }) },
);
