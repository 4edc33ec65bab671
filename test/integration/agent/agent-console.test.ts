/**
 * The console a paying user keeps (issue 21, items 1, 2, 10 and 13), the agent's server side, with
 * the built-in planner as orchestrator (no upstream credentials, as `npm start` runs) and, where the
 * engine must do the same whichever planner runs, a scripted upstream (gpt-5.4).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { type AgentClient, agentClient } from '../../support/agent.ts';
import { describeEachMode } from '../../support/gateway.ts';

const orchestrator = await ScriptedOrchestrator.start('openai');
after(() => orchestrator.close());

interface TaskRow {
  model: string;
  input_json: string;
}

async function png(width: number, height: number, white = false): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } });
  if (!white) return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 160 } } }).png().toBuffer();
  // A mask: the left half white (edit), the rest black (keep).
  return base.composite([{ input: { create: { width: Math.ceil(width / 2), height, channels: 3, background: { r: 255, g: 255, b: 255 } } }, left: 0, top: 0 }]).png().toBuffer();
}

/** One second of silence as a 16-bit mono WAV. */
function wav(): Buffer {
  const samples = 8000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

async function upload(c: AgentClient, conversationId: string, name: string, mime: string, bytes: Buffer): Promise<string> {
  const announced = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/attachments`, { name, mime, sizeBytes: bytes.length });
  assert.equal(announced.status, 200, JSON.stringify(announced.body));
  const { attachmentId, uploadUrl, uploadHeaders } = announced.body.data as { attachmentId: string; uploadUrl: string; uploadHeaders: Record<string, string> };
  const put = await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': uploadHeaders['content-type'] ?? mime } });
  assert.equal(put.status, 200, await put.text());
  const done = await c.call('POST', `/api/v1/agent/attachments/${attachmentId}/complete`);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return attachmentId;
}

describeEachMode(
  'the agent console (issue 21)',
  (ctx) => {
    const taskOf = async (c: AgentClient, runId: string, tool: string): Promise<TaskRow> => {
      const run = await c.run(runId);
      const step = run.steps.filter((s) => s.name === tool).at(-1);
      const output = step?.output as { status?: string; generationId?: string } | undefined;
      assert.equal(output?.status, 'succeeded', JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.output])));
      const { db } = ctx.gw.gateway.services.database;
      return db.selectFrom('tasks').select(['model', 'input_json']).where('id', '=', String(output?.generationId)).executeTakeFirstOrThrow();
    };

    test('item 1: a masked edit with the built-in planner sends the photo, then its mask, and says which is the mask', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const photo = await upload(c, conversationId, 'photo.png', 'image/png', await png(20, 10));
      const mask = await upload(c, conversationId, 'mask-photo.png', 'image/png', await png(20, 10, true));
      const accepted = await c.send(conversationId, 'replace the masked region with a red boat', {
        content: [
          { type: 'text', text: 'replace the masked region with a red boat' },
          { type: 'attachment', attachmentId: photo },
          { type: 'attachment', attachmentId: mask, maskFor: { type: 'attachment', id: photo } },
        ],
      });
      await c.waitFor(accepted.runId, ['completed'], 60_000);
      const task = await taskOf(c, accepted.runId, 'generate_image');
      const input = JSON.parse(task.input_json) as Record<string, unknown>;
      const urls = Object.values(input).find((v): v is string[] => Array.isArray(v)) ?? [];
      assert.equal(urls.length, 2, task.input_json);
      assert.ok(urls[0]?.includes(`${photo}-1.png`), `the photo first: ${task.input_json}`);
      assert.ok(urls[1]?.includes(`${mask}-1.png`), `its mask second: ${task.input_json}`);
      assert.match(String(input.prompt), /red boat.*reference image 2 is a mask of reference image 1: change only its white region/);
    });

    test('item 1, the engine: an orchestrator that names only the mask still sends the photo first and the mask after it', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ settings: { orchestratorModelId: 'gpt-5.4' } });
      const photo = await upload(c, conversationId, 'photo.png', 'image/png', await png(20, 10));
      const mask = await upload(c, conversationId, 'mask-photo.png', 'image/png', await png(20, 10, true));
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a red boat in the masked region', referenceArtifactIds: [mask] } }] }, { text: 'Edited.' });
      const accepted = await c.send(conversationId, 'replace the masked region with a red boat', {
        content: [
          { type: 'text', text: 'replace the masked region with a red boat' },
          { type: 'attachment', attachmentId: photo },
          { type: 'attachment', attachmentId: mask, maskFor: { type: 'attachment', id: photo } },
        ],
      });
      await c.waitFor(accepted.runId, ['completed'], 60_000);
      const task = await taskOf(c, accepted.runId, 'generate_image');
      const urls = Object.values(JSON.parse(task.input_json) as Record<string, unknown>).find((v): v is string[] => Array.isArray(v)) ?? [];
      assert.deepEqual(
        urls.map((u) => (u.includes(photo) ? 'photo' : u.includes(mask) ? 'mask' : u)),
        ['photo', 'mask'],
      );
    });

    test('item 2: a sound to analyse is reported as not analysed in the run view, the result and an event, with either planner', async () => {
      for (const planner of ['built-in', 'scripted'] as const) {
        const c = await agentClient(ctx.gw);
        const conversationId = await c.conversation(planner === 'scripted' ? { settings: { orchestratorModelId: 'gpt-5.4' } } : {});
        const sound = await upload(c, conversationId, 'jingle.wav', 'audio/wav', wav());
        if (planner === 'scripted') orchestrator.plan(conversationId, { text: 'Here is my answer.' });
        const text = 'an image inspired by this sound';
        const accepted = await c.send(conversationId, text, { content: [{ type: 'text', text }, { type: 'attachment', attachmentId: sound, usageIntent: 'analyze' }] });
        const run = await c.waitFor(accepted.runId, ['completed'], 60_000);
        const notices = (run as unknown as { notices: string[] }).notices;
        assert.equal(notices.length, 1, `${planner}: ${JSON.stringify(run)}`);
        assert.match(String(notices[0]), /^jingle\.wav was not analysed: this gateway has no model analysis of sound files/);
        assert.equal(run.steps.filter((s) => s.kind === 'analysis').length, 0, 'nothing analysed, nothing charged for it');
        assert.equal(run.steps.find((s) => s.kind === 'notice')?.costMicroUsd, '0');
        const result = (await c.result(accepted.runId)) as unknown as { notices: string[] };
        assert.deepEqual(result.notices, notices);
        const events = await c.events(conversationId);
        assert.ok(events.some((e) => e.type === 'run.step.completed' && e.data.kind === 'notice' && e.data.notice === notices[0]), planner);
        if (planner === 'built-in') assert.match(String((await c.result(accepted.runId)).mainOutcome?.text), /I could not analyse jingle\.wav/);
      }
    });

    test('item 10: a message from an empty balance is refused up front with 402, saying the balance, and nothing is written', async () => {
      const c = await agentClient(ctx.gw, 0);
      const conversationId = await c.conversation();
      const res = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'an image of a fox' }] });
      assert.equal(res.status, 402, JSON.stringify(res.body));
      assert.equal(res.body.error?.code, 'insufficient_balance');
      assert.match(String(res.body.error?.message), /your balance is \$0\.00/i);
      const messages = await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`);
      assert.equal((messages.body.data as { items: unknown[] }).items.length, 0);
      const conversation = await c.call('GET', `/api/v1/agent/conversations/${conversationId}`);
      assert.equal(conversation.body.data.activeRunId, null);
    });

    test('item 13: the built-in planner keeps an asked length of 5 s and leaves the model words out of the prompt', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const conversationId = await c.conversation();
      const accepted = await c.send(conversationId, 'a 5 s video of a fox in the snow');
      await c.waitFor(accepted.runId, ['completed'], 60_000);
      const task = await taskOf(c, accepted.runId, 'generate_video');
      assert.equal((JSON.parse(task.input_json) as { duration?: unknown }).duration, 5, task.input_json);

      const named = await c.send(conversationId, 'a video of a fox using the model veo 3.1 fast');
      await c.waitFor(named.runId, ['completed'], 60_000);
      const step = (await c.run(named.runId)).steps.find((s) => s.name === 'generate_video');
      assert.deepEqual((step?.input as { arguments?: unknown } | undefined)?.arguments, { prompt: 'video of a fox', model: 'veo-3.1-fast' });
    });

    test('item 13: under the pinned policy the built-in planner asks for the named model instead of using the pinned one', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const conversationId = await c.conversation({ settings: { routingPolicy: 'pinned', videoModelId: 'sora-2' } });
      const accepted = await c.send(conversationId, 'a video of waves with veo 3.1 fast');
      const waiting = await c.waitFor(accepted.runId, ['waiting_for_model_approval'], 60_000);
      const proposal = waiting.pendingActions[0]?.proposal as { modality?: string; fromModelId?: string; toModelId?: string } | undefined;
      assert.deepEqual([proposal?.modality, proposal?.fromModelId, proposal?.toModelId], ['video', 'sora-2', 'veo-3.1-fast']);
      assert.equal(waiting.costs.operations.filter((o) => o.kind === 'generation').length, 0, 'nothing made with the pinned model meanwhile');
      const action = waiting.pendingActions[0];
      const decided = await c.call(
        'POST',
        `/api/v1/agent/runs/${accepted.runId}/decisions`,
        { pendingActionId: action?.pendingActionId, version: action?.version, proposalHash: action?.proposalHash, input: { accept: true } },
        { 'idempotency-key': 'accept-veo' },
      );
      assert.equal(decided.status, 200, JSON.stringify(decided.body));
      await c.waitFor(accepted.runId, ['completed'], 60_000);
      assert.equal((await taskOf(c, accepted.runId, 'generate_video')).model, 'veo-3.1-fast');
    });

    test('item 13: in a brand project the brand reaches the prompts and the conversation is titled with the project\'s name', async () => {
      const c = await agentClient(ctx.gw);
      const project = await c.call('POST', '/api/v1/agent/projects', { name: 'Bakery Launch', brand: { name: 'Crumb Co', colors: ['#ff0000'] } });
      assert.equal(project.status, 200, JSON.stringify(project.body));
      const conversationId = await c.conversation({ projectId: project.body.data.projectId });
      const accepted = await c.send(conversationId, 'an image of a croissant');
      await c.waitFor(accepted.runId, ['completed'], 60_000);
      const task = await taskOf(c, accepted.runId, 'generate_image');
      assert.match(String((JSON.parse(task.input_json) as { prompt?: unknown }).prompt), /^image of a croissant, for Crumb Co, in the brand colours #FF0000/);
      const conversation = await c.call('GET', `/api/v1/agent/conversations/${conversationId}`);
      assert.equal(conversation.body.data.title, 'Bakery Launch: Image of a croissant');
    });
  },
  { configFile: { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4': ['orch'] } } },
);
