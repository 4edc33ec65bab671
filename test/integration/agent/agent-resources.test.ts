/**
 * Settings, conversations, search, pages and isolation: what should work, what is refused with a
 * 400 naming the field, and what another user or storefront must never see.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, withHost } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

async function refused(c: AgentClient, method: string, path: string, body: unknown, status: number, param?: RegExp): Promise<void> {
  const res = await c.call(method, path, body);
  assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
  if (param) assert.match(String(res.body.error?.param), param, JSON.stringify(res.body));
}

describeAgent(
  'agent resources',
  (ctx) => {
    test('settings: versions, defaults, partial saves; unknown models and wrong modalities name the field', async () => {
      const c = await agentClient(ctx.gw);
      const initial = await c.call('GET', '/api/v1/agent/settings');
      assert.equal(initial.body.data.version, 0);
      assert.equal((initial.body.data.settings as { orchestratorModelId: string }).orchestratorModelId, 'gpt-5.4-mini');
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 1, settings: {} }, 409);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { imageModelId: 'no-such-model' } }, 400, /settings\.imageModelId/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { imageModelId: 'sora-2' } }, 400, /settings\.imageModelId/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { videoModelId: 'gpt-5.4' } }, 400, /settings\.videoModelId/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { orchestratorModelId: 'nano-banana-2' } }, 400, /settings\.orchestratorModelId/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { fallbackModelIds: ['gpt-5.4', 'suno'] } }, 400, /settings\.fallbackModelIds/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { routingPolicy: 'fastest' } }, 400, /routingPolicy/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { defaultMaxCostMicroUsd: '1.5' } }, 400, /defaultMaxCostMicroUsd/);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { colour: 'red' } }, 400);
      const saved = await c.call('PUT', '/api/v1/agent/settings', { expectedVersion: 0, settings: { musicModelId: 'suno', routingPolicy: 'cheapest', fallbackModelIds: ['gpt-5.4'] } });
      assert.equal(saved.status, 200);
      assert.equal(saved.body.data.version, 1);
      const partial = await c.call('PUT', '/api/v1/agent/settings', { expectedVersion: 1, settings: { defaultMaxCostMicroUsd: '1500000' } });
      const settings = partial.body.data.settings as Record<string, unknown>;
      assert.deepEqual([settings.routingPolicy, settings.fallbackModelIds, settings.defaultMaxCostMicroUsd], ['cheapest', ['gpt-5.4'], '1500000']);
      await refused(c, 'PUT', '/api/v1/agent/settings', { expectedVersion: 1, settings: {} }, 409);
      // Another user still has the defaults.
      assert.equal((await (await agentClient(ctx.gw)).call('GET', '/api/v1/agent/settings')).body.data.version, 0);
    });

    test('conversations: every optional field, refusals naming the field, rename by version, delete', async () => {
      const c = await agentClient(ctx.gw);
      const created = await c.call('POST', '/api/v1/agent/conversations', {
        title: 'Launch',
        profileId: 'marketing',
        settings: { imageModelId: 'z-image-turbo' },
        mode: 'manual',
        selectedModelId: 'gpt-5.4',
      });
      assert.equal(created.status, 200);
      const data = created.body.data as Record<string, unknown>;
      assert.deepEqual([data.title, data.profileId, data.mode, data.selectedModelId, data.version], ['Launch', 'marketing', 'manual', 'gpt-5.4', 1]);
      assert.deepEqual(data.settings, { imageModelId: 'z-image-turbo' });
      await refused(c, 'POST', '/api/v1/agent/conversations', { profileId: 'nobody' }, 400, /profileId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { projectId: 'prj_x' }, 400, /projectId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { defaultWorkflowId: 'wf_x' }, 400, /defaultWorkflowId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { mode: 'manual' }, 400, /selectedModelId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { mode: 'manual', selectedModelId: 'gpt-9' }, 400, /selectedModelId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { settings: { videoModelId: 'suno' } }, 400, /settings\.videoModelId/);
      await refused(c, 'POST', '/api/v1/agent/conversations', { colour: 'red' }, 400);
      const id = data.conversationId as string;
      await refused(c, 'PATCH', `/api/v1/agent/conversations/${id}`, { title: 'Renamed', expectedVersion: 2 }, 409);
      const renamed = await c.call('PATCH', `/api/v1/agent/conversations/${id}`, { title: 'Renamed', expectedVersion: 1 });
      assert.deepEqual([renamed.body.data.title, renamed.body.data.version], ['Renamed', 2]);
      await refused(c, 'PATCH', `/api/v1/agent/conversations/${id}`, { title: '   ', expectedVersion: 2 }, 400);
      await refused(c, 'POST', `/api/v1/agent/conversations/${id}/messages`, { content: [{ type: 'attachment', attachmentId: 'att_x' }] }, 400);
      await refused(c, 'POST', `/api/v1/agent/conversations/${id}/messages`, { content: [] }, 400, /content/);
      await refused(c, 'POST', `/api/v1/agent/conversations/${id}/messages`, { content: [{ type: 'text', text: 'x' }], maxCostMicroUsd: '-5' }, 400, /maxCostMicroUsd/);
      await refused(c, 'POST', `/api/v1/agent/conversations/${id}/messages`, { content: [{ type: 'text', text: 'x' }], deliveryMode: 'later' }, 400, /deliveryMode/);
      assert.equal((await c.call('DELETE', `/api/v1/agent/conversations/${id}`)).status, 200);
      assert.equal((await c.call('GET', `/api/v1/agent/conversations/${id}`)).status, 404);
      assert.equal((await c.call('DELETE', `/api/v1/agent/conversations/${id}`)).status, 404);
    });

    test('the list: latest activity first, cursor pages, full-text search in titles and message texts', async () => {
      const c = await agentClient(ctx.gw);
      const ids: string[] = [];
      for (const title of ['Alpha launch', 'Beta party', 'Gamma report', 'Delta plan', 'Epsilon notes']) ids.push(await c.conversation({ title }));
      ctx.orchestrator.plan(ids[0] ?? '', { text: 'The mug shot is ready.' });
      await c.waitFor((await c.send(ids[0] ?? '', 'a photo of a ceramic mug on oak')).runId, ['completed']);
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const res = await c.call('GET', `/api/v1/agent/conversations?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push((res.body.data.items as Array<{ conversationId: string }>).map((i) => i.conversationId));
        cursor = res.body.data.nextCursor as string | null;
      } while (cursor);
      assert.deepEqual(pages.map((p) => p.length), [2, 2, 1]);
      // The conversation with the newest activity comes first; the others by creation, newest first.
      assert.deepEqual(pages.flat(), [ids[0], ids[4], ids[3], ids[2], ids[1]]);
      const search = async (q: string) => ((await c.call('GET', `/api/v1/agent/conversations?q=${encodeURIComponent(q)}`)).body.data.items as Array<{ conversationId: string }>).map((i) => i.conversationId);
      assert.deepEqual(await search('ceramic'), [ids[0]]);
      assert.deepEqual(await search('mug shot'), [ids[0]]);
      assert.deepEqual(await search('CERAM'), [ids[0]], 'a prefix, in any case');
      assert.deepEqual(await search('gamma'), [ids[2]]);
      assert.deepEqual(await search('party beta'), [ids[1]]);
      assert.deepEqual(await search('"*)(:&|!'), []);
      assert.deepEqual(await search('nothing-like-this'), []);
      const stranger = await agentClient(ctx.gw);
      assert.deepEqual(((await stranger.call('GET', '/api/v1/agent/conversations?q=ceramic')).body.data.items as unknown[]).length, 0);
      await refused(c, 'GET', '/api/v1/agent/conversations?cursor=bogus', undefined, 400, /cursor/);
    });

    test('another user, or another storefront, sees a 404 for every id', async () => {
      const owner = await agentClient(ctx.gw);
      const stranger = await agentClient(ctx.gw);
      const conversationId = await owner.conversation({ title: 'Mine' });
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'mine' } }] }, { text: 'ok' });
      const run = await owner.send(conversationId, 'an image');
      await owner.waitFor(run.runId, ['completed']);
      const artifactId = (await owner.result(run.runId)).artifacts[0]?.artifactId;
      for (const [method, path, body] of [
        ['GET', `/api/v1/agent/conversations/${conversationId}`],
        ['PATCH', `/api/v1/agent/conversations/${conversationId}`, { title: 'x', expectedVersion: 1 }],
        ['DELETE', `/api/v1/agent/conversations/${conversationId}`],
        ['POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }] }],
        ['GET', `/api/v1/agent/conversations/${conversationId}/messages`],
        ['GET', `/api/v1/agent/conversations/${conversationId}/event-history`],
        ['GET', `/api/v1/agent/runs/${run.runId}`],
        ['GET', `/api/v1/agent/runs/${run.runId}/result`],
        ['POST', `/api/v1/agent/runs/${run.runId}/stop`],
        ['PATCH', `/api/v1/agent/runs/${run.runId}/budget`, { maxCostMicroUsd: '5', expectedVersion: 1 }],
        ['POST', `/api/v1/agent/runs/${run.runId}/resume`],
        ['GET', `/api/v1/agent/artifacts/${artifactId}`],
      ] as Array<[string, string, unknown?]>) {
        const res = await stranger.call(method, path, body);
        assert.equal(res.status, 404, `${method} ${path}`);
        const elsewhere = await withHost(ctx.gw.url, 'closed.test', owner.key, method, path, body);
        assert.equal(elsewhere.status, 404, `${method} ${path} on another storefront`);
      }
      assert.equal((await owner.call('GET', `/api/v1/agent/artifacts/${artifactId}`)).status, 200);
    });

    test('a storefront with new runs disabled keeps history and controls, refuses new runs', async () => {
      const c = await agentClient(ctx.gw);
      const created = await withHost(ctx.gw.url, 'closed.test', c.key, 'POST', '/api/v1/agent/conversations', { title: 'Closed' });
      assert.equal(created.status, 200);
      const id = created.body.data.conversationId as string;
      const send = await withHost(ctx.gw.url, 'closed.test', c.key, 'POST', `/api/v1/agent/conversations/${id}/messages`, { content: [{ type: 'text', text: 'hello' }] });
      assert.equal(send.status, 403);
      assert.equal((send.body.error as { code: string }).code, 'agent_runs_disabled');
      assert.equal((await withHost(ctx.gw.url, 'closed.test', c.key, 'GET', `/api/v1/agent/conversations/${id}/event-history`)).status, 200);
      assert.equal((await withHost(ctx.gw.url, 'closed.test', c.key, 'GET', '/api/v1/agent/conversations')).status, 200);
    });

    test('the newest artifacts are listed for their owner only, newest first; a bad limit is refused', async () => {
      const owner = await agentClient(ctx.gw);
      const stranger = await agentClient(ctx.gw);
      const conversationId = await owner.conversation({ title: 'Pick from these' });
      const made: string[] = [];
      for (const prompt of ['first', 'second']) {
        ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt } }] }, { text: 'ok' });
        const run = await owner.send(conversationId, prompt);
        await owner.waitFor(run.runId, ['completed']);
        made.push((await owner.result(run.runId)).artifacts[0]?.artifactId as string);
      }
      const listed = (await owner.call('GET', '/api/v1/agent/artifacts')).body.data as unknown as Array<{ artifactId: string; conversationId: string }>;
      assert.deepEqual(listed.map((a) => a.artifactId), [...made].reverse());
      assert.equal(listed[0]?.conversationId, conversationId);
      assert.deepEqual(((await owner.call('GET', '/api/v1/agent/artifacts?limit=1')).body.data as unknown as unknown[]).length, 1);
      assert.deepEqual((await stranger.call('GET', '/api/v1/agent/artifacts')).body.data, []);
      assert.deepEqual((await withHost(ctx.gw.url, 'closed.test', owner.key, 'GET', '/api/v1/agent/artifacts')).body.data, []);
      await refused(owner, 'GET', '/api/v1/agent/artifacts?limit=0', undefined, 400, /limit/);
      assert.equal((await owner.call('DELETE', `/api/v1/agent/conversations/${conversationId}`)).status, 200);
      assert.deepEqual((await owner.call('GET', '/api/v1/agent/artifacts')).body.data, [], 'a deleted conversation takes its artifacts off the list');
    });

    test('the agent endpoints are in the OpenAPI document with their request schemas', async () => {
      const doc = (await (await fetch(`${ctx.gw.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: unknown; tags?: string[] }>> };
      const expected: Array<[string, string]> = [
        ['/api/v1/agent/models', 'get'],
        ['/api/v1/agent/settings', 'get'],
        ['/api/v1/agent/settings', 'put'],
        ['/api/v1/agent/conversations', 'post'],
        ['/api/v1/agent/conversations', 'get'],
        ['/api/v1/agent/conversations/{conversationId}', 'patch'],
        ['/api/v1/agent/conversations/{conversationId}', 'delete'],
        ['/api/v1/agent/conversations/{conversationId}/messages', 'post'],
        ['/api/v1/agent/runs/{runId}', 'get'],
        ['/api/v1/agent/conversations/{conversationId}/events', 'get'],
        ['/api/v1/agent/conversations/{conversationId}/event-history', 'get'],
        ['/api/v1/agent/runs/{runId}/decisions', 'post'],
        ['/api/v1/agent/runs/{runId}/stop', 'post'],
        ['/api/v1/agent/runs/{runId}/budget', 'patch'],
        ['/api/v1/agent/runs/{runId}/resume', 'post'],
        ['/api/v1/agent/runs/{runId}/result', 'get'],
        ['/api/v1/agent/artifacts', 'get'],
        ['/api/v1/agent/artifacts/{artifactId}', 'get'],
        ['/api/v1/agent/webhooks', 'post'],
        ['/api/v1/agent/webhooks/{webhookId}', 'delete'],
        ['/api/v1/agent/profiles', 'get'],
      ];
      for (const [path, method] of expected) assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
      assert.ok(doc.paths['/api/v1/agent/conversations/{conversationId}/messages']?.post?.requestBody);
    });
  },
  {
    protocols: ['openai'],
    config: () => ({ storefronts: { main: {}, closed: { hosts: ['closed.test'], agentRuns: false } } }),
  },
);
