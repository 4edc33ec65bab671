/**
 * Project asset import (issue 12, item 2): an artifact copied into a project's assets in paid storage,
 * as an operation polled by id, made once per Idempotency-Key; the copy outlives its source; no plan,
 * no import; 50 concurrent imports against a nearly full quota never pass it; deleting the file frees
 * the quota and removes the asset. Both modes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import type { TestGateway } from '../../support/gateway.ts';
import type { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';

const QUOTA = 2_000_000;
const PLANS = { tiny: { name: 'Tiny', quotaBytes: QUOTA, monthlyPriceMicroUsd: 1_000_000 } };

async function artifactOf(c: AgentClient, orchestrator: ScriptedOrchestrator): Promise<{ conversationId: string; artifactId: string }> {
  const conversationId = await c.conversation();
  orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a logo', model: 'z-image-turbo' } }] }, { text: 'Here.' });
  const run = await c.send(conversationId, 'a logo');
  await c.waitFor(run.runId, ['completed']);
  const artifactId = (await c.result(run.runId)).artifacts[0]?.artifactId;
  assert.ok(artifactId);
  return { conversationId, artifactId };
}

async function subscribe(c: AgentClient): Promise<void> {
  const q = (await c.call('POST', '/api/v1/agent/storage/quote', { planId: 'tiny' })).body.data as { quoteId: string; quotaVersion: number };
  const res = await c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew: true }, { 'idempotency-key': `plan-${q.quoteId}` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function project(c: AgentClient, name: string): Promise<string> {
  const res = await c.call('POST', '/api/v1/agent/projects', { name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.projectId as string;
}

async function settle(c: AgentClient, operationId: string): Promise<{ status: string; file: { fileId: string; url: string; sizeBytes: number; kind: string; projectId: string } | null; error: { code: string } | null }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await c.call('GET', `/api/v1/agent/storage/operations/${operationId}`);
    const data = res.body.data as Awaited<ReturnType<typeof settle>>;
    if (data.status !== 'pending') return data;
    assert.ok(Date.now() < deadline, `operation ${operationId} still pending`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const importAsset = (c: AgentClient, projectId: string, body: unknown, key?: string) =>
  c.call('POST', `/api/v1/agent/projects/${projectId}/assets/import`, body, key ? { 'idempotency-key': key } : {});

describeAgent(
  'project asset import',
  (ctx) => {
    test('needs a plan and a key; one copy per key; the asset outlives its source conversation; delete frees quota', async () => {
      const c = await agentClient(ctx.gw as TestGateway);
      const { conversationId, artifactId } = await artifactOf(c, ctx.orchestrator);
      const projectId = await project(c, 'Brand');
      assert.equal((await importAsset(c, projectId, { artifactId, role: 'logo' }, 'k0')).body.error?.code, 'storage_plan_required');
      await subscribe(c);
      assert.equal((await importAsset(c, projectId, { artifactId, role: 'logo' })).status, 400, 'Idempotency-Key is required');
      assert.equal((await importAsset(c, projectId, { artifactId, role: 'mascot' }, 'k1')).status, 400);
      assert.equal((await importAsset(c, 'proj_nope', { artifactId, role: 'logo' }, 'k1')).status, 404);
      const other = await agentClient(ctx.gw as TestGateway);
      await subscribe(other);
      const theirs = await project(other, 'Theirs');
      assert.equal((await importAsset(other, theirs, { artifactId, role: 'logo' }, 'k1')).status, 404, 'another user\'s artifact');

      const first = await importAsset(c, projectId, { artifactId, role: 'logo' }, 'logo-1');
      assert.equal(first.status, 202, JSON.stringify(first.body));
      const again = await importAsset(c, projectId, { artifactId, role: 'logo' }, 'logo-1');
      assert.equal(again.body.data.operationId, first.body.data.operationId);
      const done = await settle(c, first.body.data.operationId as string);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.file?.kind, 'project_asset');
      assert.equal(done.file?.projectId, projectId);
      const assets = await c.call('GET', `/api/v1/agent/projects/${projectId}/assets`);
      const items = assets.body.data.items as Array<{ assetId: string; role: string; sourceArtifactId: string }>;
      assert.deepEqual(items.map((a) => [a.assetId, a.role, a.sourceArtifactId]), [[done.file?.fileId, 'logo', artifactId]]);

      assert.equal((await c.call('DELETE', `/api/v1/agent/conversations/${conversationId}`)).status, 200);
      assert.equal((await fetch(done.file?.url ?? '')).status, 200, 'the copy outlives its source');
      assert.equal(((await c.call('GET', `/api/v1/agent/projects/${projectId}/assets`)).body.data.items as unknown[]).length, 1);

      assert.equal((await c.call('DELETE', `/api/v1/agent/storage/files/${done.file?.fileId}`)).status, 200);
      assert.equal(((await c.call('GET', `/api/v1/agent/projects/${projectId}/assets`)).body.data.items as unknown[]).length, 0, 'the asset went with its file');
      const account = (await c.call('GET', '/api/v1/agent/storage/subscription')).body.data as { subscription: { usedBytes: number } };
      assert.equal(account.subscription.usedBytes, 0);
      await assertBooksBalance(ctx.gw as TestGateway);
    });

    test('50 concurrent imports against a nearly full quota: exactly the copies that fit', async () => {
      const c = await agentClient(ctx.gw as TestGateway);
      const { artifactId } = await artifactOf(c, ctx.orchestrator);
      const projectId = await project(c, 'Crowded');
      await subscribe(c);
      const accepted = await Promise.all(Array.from({ length: 50 }, (_, i) => importAsset(c, projectId, { artifactId, role: 'product' }, `p-${i}`)));
      const ids: string[] = [];
      for (const res of accepted) {
        if (res.status === 202) ids.push(res.body.data.operationId as string);
        else assert.equal(res.body.error?.code, 'storage_quota_exceeded', JSON.stringify(res.body));
      }
      const outcomes = await Promise.all(ids.map((id) => settle(c, id)));
      const completed = outcomes.filter((o) => o.status === 'completed');
      for (const o of outcomes) if (o.status === 'failed') assert.equal(o.error?.code, 'storage_quota_exceeded');
      const size = completed[0]?.file?.sizeBytes ?? 0;
      const fit = Math.floor(QUOTA / size);
      assert.ok(fit > 1 && fit < 50, `a quota that fits some copies, not all (file ${size} bytes)`);
      assert.equal(completed.length, fit);
      const account = (await c.call('GET', '/api/v1/agent/storage/subscription')).body.data as { subscription: { usedBytes: number; quotaBytes: number } };
      assert.ok(account.subscription.usedBytes <= account.subscription.quotaBytes);
      assert.equal(account.subscription.usedBytes, fit * size);
      const assets = await c.call('GET', `/api/v1/agent/projects/${projectId}/assets?limit=100`);
      assert.equal((assets.body.data.items as unknown[]).length, fit);
    });
  },
  { protocols: ['openai'], config: () => ({ storagePlans: PLANS }) },
);
