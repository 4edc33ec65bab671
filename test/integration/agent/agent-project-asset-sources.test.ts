/**
 * Project asset import sources (issue 21, item 12): an asset comes from an artifact, from one output
 * of a generation, or from an upload from disk. An id that names nothing of yours is 404
 * source_not_found, with or without a storage plan, so it is never mistaken for 402
 * storage_plan_required; a known source without a plan is still 402. Bad bodies are 400 and change
 * nothing. Both modes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { type AgentClient, agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import type { TestGateway } from '../../support/gateway.ts';
import type { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';

const PLANS = { small: { name: 'Small', quotaBytes: 50_000_000, monthlyPriceMicroUsd: 1_000_000 } };

async function artifactOf(c: AgentClient, orchestrator: ScriptedOrchestrator): Promise<string> {
  const conversationId = await c.conversation();
  orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a logo', model: 'z-image-turbo' } }] }, { text: 'Here.' });
  const run = await c.send(conversationId, 'a logo');
  await c.waitFor(run.runId, ['completed']);
  const artifactId = (await c.result(run.runId)).artifacts[0]?.artifactId;
  assert.ok(artifactId);
  return artifactId;
}

async function finishedGeneration(c: AgentClient): Promise<{ taskId: string; files: Array<{ fileUrl: string }> }> {
  const created = await c.call('POST', '/api/v1/generation/create', { model: 'suno', input: { action: 'music', gptDescriptionPrompt: 'a short tune about tea' } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const taskId = (created.body.data as unknown as { taskId: string }).taskId;
  for (let i = 0; i < 600; i++) {
    const status = (await c.call('GET', `/api/v1/task/status/${taskId}`)).body.data as unknown as { status: string; files: Array<{ fileUrl: string }> };
    if (status.status === 'finished') return { taskId, files: status.files };
    assert.ok(!['failed', 'expired'].includes(status.status), JSON.stringify(status));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`generation ${taskId} did not finish`);
}

async function uploaded(c: AgentClient): Promise<{ uploadId: string; bytes: Buffer }> {
  const bytes = await sharp({ create: { width: 48, height: 48, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
  const announced = await c.call('POST', '/api/v1/playground/uploads', { name: 'logo.png', mime: 'image/png', sizeBytes: bytes.length });
  assert.equal(announced.status, 200, JSON.stringify(announced.body));
  const slot = announced.body.data as unknown as { attachmentId: string; uploadUrl: string };
  const sent = await fetch(slot.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'image/png' } });
  assert.equal(sent.status, 200, await sent.text());
  const done = await c.call('POST', `/api/v1/playground/uploads/${slot.attachmentId}/complete`);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return { uploadId: slot.attachmentId, bytes };
}

async function subscribe(c: AgentClient): Promise<void> {
  const q = (await c.call('POST', '/api/v1/agent/storage/quote', { planId: 'small' })).body.data as { quoteId: string; quotaVersion: number };
  const res = await c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew: true }, { 'idempotency-key': `plan-${q.quoteId}` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function project(c: AgentClient, name: string): Promise<string> {
  const res = await c.call('POST', '/api/v1/agent/projects', { name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.projectId as string;
}

interface Operation {
  status: string;
  source: { type: string; id: string; outputIndex: number | null };
  file: { fileId: string; url: string; sizeBytes: number } | null;
  error: { code: string } | null;
}

async function settle(c: AgentClient, operationId: string): Promise<Operation> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const data = (await c.call('GET', `/api/v1/agent/storage/operations/${operationId}`)).body.data as unknown as Operation;
    if (data.status !== 'pending') return data;
    assert.ok(Date.now() < deadline, `operation ${operationId} still pending`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const importAsset = (c: AgentClient, projectId: string, body: unknown, key: string) => c.call('POST', `/api/v1/agent/projects/${projectId}/assets/import`, body, { 'idempotency-key': key });

describeAgent(
  'project asset import sources',
  (ctx) => {
    test('unknown or foreign sources are 404 source_not_found, with or without a plan; a known source without a plan is 402', async () => {
      const c = await agentClient(ctx.gw as TestGateway);
      const other = await agentClient(ctx.gw as TestGateway);
      const projectId = await project(c, 'Brand');
      const artifactId = await artifactOf(c, ctx.orchestrator);
      const theirs = await finishedGeneration(other);
      const theirUpload = await uploaded(other);
      const unknown = [{ artifactId: 'art_nope' }, { generationId: 'task_nope' }, { generationId: theirs.taskId }, { uploadId: 'att_nope' }, { uploadId: theirUpload.uploadId }];

      for (const source of unknown) {
        const res = await importAsset(c, projectId, { ...source, role: 'logo' }, `none-${JSON.stringify(source)}`);
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assert.equal(res.body.error?.code, 'source_not_found', `no plan, ${JSON.stringify(source)}`);
      }
      const planless = await importAsset(c, projectId, { artifactId, role: 'logo' }, 'known-no-plan');
      assert.equal(planless.status, 402);
      assert.equal(planless.body.error?.code, 'storage_plan_required');

      await subscribe(c);
      const mine = await finishedGeneration(c);
      for (const source of [...unknown, { generationId: mine.taskId, outputIndex: 99 }]) {
        const res = await importAsset(c, projectId, { ...source, role: 'logo' }, `plan-${JSON.stringify(source)}`);
        assert.equal(res.body.error?.code, 'source_not_found', `with a plan, ${JSON.stringify(source)}`);
      }
      const files = (await c.call('GET', '/api/v1/agent/storage/files')).body.data as { items: unknown[] };
      assert.equal(files.items.length, 0, 'nothing was copied');
    });

    test('bad bodies are 400: no source, two sources, outputIndex without a generation, unknown fields', async () => {
      const c = await agentClient(ctx.gw as TestGateway);
      const projectId = await project(c, 'Strict');
      await subscribe(c);
      const bodies = [
        { role: 'logo' },
        { artifactId: 'art_a', generationId: 'task_b', role: 'logo' },
        { artifactId: 'art_a', uploadId: 'att_b', role: 'logo' },
        { uploadId: 'att_b', outputIndex: 1, role: 'logo' },
        { artifactId: 'art_a', outputIndex: 1, role: 'logo' },
        { generationId: 'task_a', outputIndex: -1, role: 'logo' },
        { artifactId: 'art_a', role: 'mascot' },
        { artifactId: 'art_a', role: 'logo', colour: 'red' },
      ];
      for (const [i, body] of bodies.entries()) {
        const res = await importAsset(c, projectId, body, `bad-${i}`);
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error?.code, 'invalid_input');
      }
    });

    test('an artifact, a generation output and an upload each become a project asset with their own bytes', async () => {
      const c = await agentClient(ctx.gw as TestGateway);
      const projectId = await project(c, 'Sources');
      await subscribe(c);
      const artifactId = await artifactOf(c, ctx.orchestrator);
      const generation = await finishedGeneration(c);
      assert.ok(generation.files.length >= 2, 'a song has two tracks');
      const upload = await uploaded(c);

      const cases: Array<{ body: Record<string, unknown>; source: Operation['source']; bytes: () => Promise<Buffer> }> = [
        { body: { artifactId, role: 'logo' }, source: { type: 'artifact', id: artifactId, outputIndex: null }, bytes: async () => Buffer.alloc(0) },
        {
          body: { generationId: generation.taskId, outputIndex: 1, role: 'reference' },
          source: { type: 'generation', id: generation.taskId, outputIndex: 1 },
          bytes: async () => Buffer.from(await (await fetch(generation.files[1]?.fileUrl ?? '')).arrayBuffer()),
        },
        { body: { uploadId: upload.uploadId, role: 'product' }, source: { type: 'upload', id: upload.uploadId, outputIndex: null }, bytes: async () => upload.bytes },
      ];
      const fileIds: string[] = [];
      for (const [i, item] of cases.entries()) {
        const accepted = await importAsset(c, projectId, item.body, `src-${i}`);
        assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
        const done = await settle(c, accepted.body.data.operationId as string);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(done.source, item.source);
        const copy = Buffer.from(await (await fetch(done.file?.url ?? '')).arrayBuffer());
        const expected = await item.bytes();
        if (expected.length > 0) assert.deepEqual(copy, expected, `the copy of ${item.source.type} holds its bytes`);
        assert.equal(copy.length, done.file?.sizeBytes);
        fileIds.push(done.file?.fileId ?? '');
      }
      const assets = (await c.call('GET', `/api/v1/agent/projects/${projectId}/assets`)).body.data.items as Array<{ assetId: string; role: string; sourceArtifactId: string | null }>;
      assert.deepEqual(
        assets.map((a) => [a.assetId, a.role, a.sourceArtifactId]).sort(),
        [
          [fileIds[0], 'logo', artifactId],
          [fileIds[1], 'reference', null],
          [fileIds[2], 'product', null],
        ].sort(),
      );
      await assertBooksBalance(ctx.gw as TestGateway);
    });
  },
  { protocols: ['openai'], config: () => ({ storagePlans: PLANS }) },
);
