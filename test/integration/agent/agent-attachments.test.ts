/**
 * Attachments (SPEC rule 11, "Attachment upload", Limits): announce, upload without credentials (the
 * gateway's own URL in embedded mode, a presigned S3 PUT in scale-out), complete with real checks,
 * immutability, isolation, and the 24-hour and 3-day expiries with the agent's clock moved forward.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { type AgentClient, agentClient, withHost } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const HOUR = 3_600_000;

interface Upload {
  attachmentId: string;
  uploadUrl: string;
  uploadHeaders: Record<string, string>;
  expiresAt: string;
}

interface AttachmentView {
  attachmentId: string;
  status: string;
  sizeBytes: number;
  facts: { kind: string; format: string; width?: number; height?: number; pages?: number; chars?: number } | null;
  sha256: string | null;
  completedAt: string | null;
  expiresAt: string | null;
}

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
}

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\nxref\n0 4\ntrailer << /Root 1 0 R /Size 4 >>\nstartxref\n180\n%%EOF\n',
  'latin1',
);

/** A one-page PDF whose text is in a Flate-compressed content stream, as most tools write it. */
function flatePdf(text: string): Buffer {
  const content = deflateSync(Buffer.from(`BT /F1 12 Tf 72 712 Td (${text}) Tj ET`));
  return Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj\n'),
    Buffer.from(`4 0 obj << /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
    content,
    Buffer.from('\nendstream\nendobj\nxref\n0 5\ntrailer << /Root 1 0 R /Size 5 >>\nstartxref\n9\n%%EOF\n'),
  ]);
}

/** One second of silence as a 16-bit mono WAV. */
function wavBytes(): Buffer {
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

/** The system prompt of a recorded OpenAI-style orchestrator request. */
function systemPromptOf(body: Record<string, unknown> | undefined): string {
  const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return String(messages.find((m) => m.role === 'system')?.content ?? '');
}

async function announce(c: AgentClient, conversationId: string, name: string, mime: string, sizeBytes: number): Promise<Upload> {
  const res = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/attachments`, { name, mime, sizeBytes });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as unknown as Upload;
}

function put(upload: Upload, bytes: Buffer, contentType?: string): Promise<Response> {
  return fetch(upload.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': contentType ?? upload.uploadHeaders['content-type'] ?? '' } });
}

async function complete(c: AgentClient, attachmentId: string): Promise<{ status: number; view: AttachmentView; code: string | undefined }> {
  const res = await c.call('POST', `/api/v1/agent/attachments/${attachmentId}/complete`);
  return { status: res.status, view: res.body.data as unknown as AttachmentView, code: res.body.error?.code };
}

async function uploaded(c: AgentClient, conversationId: string, name: string, mime: string, bytes: Buffer): Promise<AttachmentView> {
  const upload = await announce(c, conversationId, name, mime, bytes.length);
  const sent = await put(upload, bytes);
  assert.equal(sent.status, 200, await sent.text());
  const done = await complete(c, upload.attachmentId);
  assert.equal(done.status, 200, JSON.stringify(done));
  return done.view;
}

describeAgent(
  'agent attachments',
  (ctx) => {
    test('an image is announced, uploaded without credentials, checked and completed once; its original is immutable', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const bytes = await png(64, 48);
      const upload = await announce(c, conversationId, 'red.png', 'image/png', bytes.length);
      assert.match(upload.attachmentId, /^att_/);
      assert.ok(Date.parse(upload.expiresAt) - Date.now() > 23 * HOUR, 'the upload is open for 24 hours');
      assert.equal((await complete(c, upload.attachmentId)).code, 'attachment_not_uploaded');
      // Another type or length than announced is refused by whoever receives the upload.
      assert.ok((await put(upload, bytes, 'image/jpeg')).status >= 400);
      assert.ok((await fetch(upload.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes.subarray(1)), headers: { 'content-type': 'image/png' } })).status >= 400);
      assert.equal((await put(upload, bytes)).status, 200);
      const done = await complete(c, upload.attachmentId);
      assert.equal(done.status, 200);
      assert.deepEqual(done.view.facts, { kind: 'image', format: 'png', width: 64, height: 48 });
      assert.match(String(done.view.sha256), /^[0-9a-f]{64}$/);
      assert.equal(Date.parse(String(done.view.expiresAt)) - Date.parse(String(done.view.completedAt)), 72 * HOUR);
      // Completing again changes nothing; a new upload cannot replace the original.
      assert.deepEqual((await complete(c, upload.attachmentId)).view, done.view);
      const again = await put(upload, await png(10, 10));
      if (ctx.mode === 'embedded') assert.equal(again.status, 409);
      const view = await c.call('GET', `/api/v1/agent/attachments/${upload.attachmentId}`);
      assert.equal((view.body.data as unknown as AttachmentView).sha256, done.view.sha256, 'the original is the first upload');
    });

    test('complete checks the bytes: wrong magic bytes, a cut-off picture, bad JSON and text that is not UTF-8 are refused, and the upload stays open', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const image = await png(32, 32);
      const disguised = await announce(c, conversationId, 'photo.jpg', 'image/jpeg', image.length);
      await put(disguised, image);
      const wrongType = await complete(c, disguised.attachmentId);
      assert.deepEqual([wrongType.status, wrongType.code], [400, 'invalid_attachment']);
      const cut = image.subarray(0, image.length - 20);
      const truncated = await announce(c, conversationId, 'cut.png', 'image/png', cut.length);
      await put(truncated, cut);
      assert.equal((await complete(c, truncated.attachmentId)).code, 'invalid_attachment');
      const json = Buffer.from('{"a": 1,');
      const badJson = await announce(c, conversationId, 'data.json', 'application/json', json.length);
      await put(badJson, json);
      assert.equal((await complete(c, badJson.attachmentId)).code, 'invalid_attachment');
      const latin = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
      const notUtf8 = await announce(c, conversationId, 'notes.txt', 'text/plain', latin.length);
      await put(notUtf8, latin);
      assert.equal((await complete(c, notUtf8.attachmentId)).code, 'invalid_attachment');
      const view = await c.call('GET', `/api/v1/agent/attachments/${notUtf8.attachmentId}`);
      assert.equal((view.body.data as unknown as AttachmentView).status, 'pending');
      // PDF, CSV and JSON that are what they say pass.
      assert.deepEqual((await uploaded(c, conversationId, 'doc.pdf', 'application/pdf', PDF)).facts, { kind: 'pdf', format: 'pdf', pages: 1 });
      assert.deepEqual((await uploaded(c, conversationId, 'rows.csv', 'text/csv', Buffer.from('a,b\n1,2\n'))).facts, { kind: 'text', format: 'csv', chars: 8 });
      assert.equal((await uploaded(c, conversationId, 'ok.json', 'application/json', Buffer.from('{"a":[1,2]}'))).facts?.kind, 'text');
    });

    test('announcements past the limits or of unknown types are refused with 400 naming the field, before anything is stored', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const path = `/api/v1/agent/conversations/${conversationId}/attachments`;
      const cases: Array<[unknown, string]> = [
        [{ name: 'big.mp4', mime: 'video/mp4', sizeBytes: 25 * 1024 * 1024 + 1 }, 'sizeBytes'],
        [{ name: 'x.exe', mime: 'application/x-msdownload', sizeBytes: 10 }, 'mime'],
        [{ name: 'a/b.png', mime: 'image/png', sizeBytes: 10 }, 'name'],
        [{ name: 'a.png', mime: 'image/png', sizeBytes: 0 }, 'sizeBytes'],
        [{ name: 'a.png', mime: 'image/png', sizeBytes: 10, colour: 'red' }, ''],
      ];
      for (const [body, param] of cases) {
        const res = await c.call('POST', path, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        if (param) assert.match(String(res.body.error?.param), new RegExp(param), JSON.stringify(res.body));
      }
      assert.equal((await c.call('POST', path, { name: 'ok.png', mime: 'image/png', sizeBytes: 25 * 1024 * 1024 })).status, 200, 'exactly 25 MiB is allowed');
    });

    test('another user or storefront sees no attachment, and an upload URL with another token is not found', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const view = await uploaded(c, conversationId, 'mine.png', 'image/png', await png(8, 8));
      assert.equal((await other.call('GET', `/api/v1/agent/attachments/${view.attachmentId}`)).status, 404);
      assert.equal((await other.call('POST', `/api/v1/agent/attachments/${view.attachmentId}/complete`)).status, 404);
      assert.equal((await other.call('POST', `/api/v1/agent/conversations/${conversationId}/attachments`, { name: 'x.png', mime: 'image/png', sizeBytes: 5 })).status, 404);
      assert.equal((await withHost(ctx.gw.url, 'shop2.example.com', c.key, 'GET', `/api/v1/agent/attachments/${view.attachmentId}`)).status, 404);
      if (ctx.mode === 'embedded') {
        const upload = await announce(c, conversationId, 'y.png', 'image/png', 5);
        const forged = upload.uploadUrl.replace(/token=[^&]+/, 'token=forged');
        assert.equal((await fetch(forged, { method: 'PUT', body: new Uint8Array(5), headers: { 'content-type': 'image/png' } })).status, 404);
      }
    });

    test('a message carries up to ten completed files of its conversation; the orchestrator reads them, text extracted for free, and uses an image as a reference', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const photo = await uploaded(c, conversationId, 'mug.png', 'image/png', await png(40, 30));
      const notes = await uploaded(c, conversationId, 'notes.txt', 'text/plain', Buffer.from('The launch is on Friday.'));
      const pdf = await uploaded(c, conversationId, 'brief.pdf', 'application/pdf', flatePdf('Budget: 300 euros'));
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'the mug on a beach', referenceArtifactIds: [photo.attachmentId] } }] }, { text: 'Done.' });
      const accepted = await c.send(conversationId, 'put this mug on a beach', {
        content: [
          { type: 'text', text: 'put this mug on a beach' },
          { type: 'attachment', attachmentId: photo.attachmentId, usageIntent: 'both' },
          { type: 'attachment', attachmentId: notes.attachmentId },
          { type: 'attachment', attachmentId: pdf.attachmentId, usageIntent: 'analyze' },
        ],
      });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const system = systemPromptOf(ctx.orchestrator.callsFor(conversationId)[0]);
      // The photo was described by a billed analysis call before the orchestrator planned.
      assert.ok(system.includes(`- ${photo.attachmentId}: image, "mug.png", 40×30\n`), system);
      assert.ok(system.includes(`Description of ${photo.attachmentId} ("mug.png"), by a model:\n<<<\n`), system);
      const analysis = run.steps.find((s) => s.kind === 'analysis');
      assert.equal(analysis?.status, 'completed');
      assert.equal((analysis?.input as { target?: string } | undefined)?.target, photo.attachmentId);
      assert.ok(Number(analysis?.costMicroUsd) > 0, 'the analysis is billed');
      assert.ok(run.costs.operations.some((o) => o.kind === 'chat' && o.state === 'settled' && Number(o.costMicroUsd) === Number(analysis?.costMicroUsd)));
      assert.ok(system.includes('<<<\nThe launch is on Friday.\n>>>'), system);
      assert.ok(system.includes('<<<\nBudget: 300 euros\n>>>'), system);
      const step = run.steps.find((s) => s.name === 'generate_image');
      const output = step?.output as { status: string; generationId: string } | undefined;
      assert.equal(output?.status, 'succeeded', JSON.stringify(output));
      const generationId = String(output?.generationId);
      const task = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('input_json').where('id', '=', generationId).executeTakeFirstOrThrow();
      // The original's own file (its key is named after the attachment) is the generation's reference.
      assert.ok(task.input_json.includes(`${photo.attachmentId}-1.png`), task.input_json);

      // Sound has no analysis route: said so, nothing charged for it, the file still usable.
      const wav = wavBytes();
      const sound = await uploaded(c, conversationId, 'jingle.wav', 'audio/wav', wav);
      ctx.orchestrator.plan(conversationId, { text: 'Heard nothing.' });
      const second = await c.send(conversationId, 'listen to this', { content: [{ type: 'text', text: 'listen to this' }, { type: 'attachment', attachmentId: sound.attachmentId, usageIntent: 'analyze' }] });
      const heard = await c.waitFor(second.runId, ['completed']);
      assert.equal(heard.steps.filter((s) => s.kind === 'analysis').length, 0);
      const calls = ctx.orchestrator.callsFor(conversationId);
      assert.ok(systemPromptOf(calls.at(-1)).includes(`- ${sound.attachmentId}: audio, "jingle.wav"`), 'listed');
      assert.ok(systemPromptOf(calls.at(-1)).includes('not read: model analysis of audio files is not available on this gateway'), systemPromptOf(calls.at(-1)));
    });

    test('files in a message are refused with 400 naming the block: more than ten, not completed, another conversation\'s, and bad masks', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const otherConversation = await c.conversation();
      const photo = await uploaded(c, conversationId, 'photo.png', 'image/png', await png(20, 10));
      const foreign = await uploaded(c, otherConversation, 'other.png', 'image/png', await png(20, 10));
      const pending = await announce(c, conversationId, 'later.png', 'image/png', 10);
      const path = `/api/v1/agent/conversations/${conversationId}/messages`;
      const send = (blocks: unknown[]) => c.call('POST', path, { content: [{ type: 'text', text: 'edit it' }, ...blocks] });
      const eleven = Array.from({ length: 11 }, (_, i) => ({ type: 'attachment', attachmentId: `att_${String(i).padStart(26, '0')}` }));
      const cases: Array<[unknown[], number, RegExp]> = [
        [eleven, 400, /content/],
        [[{ type: 'attachment', attachmentId: pending.attachmentId }], 400, /content\[1\]\.attachmentId/],
        [[{ type: 'attachment', attachmentId: foreign.attachmentId }], 400, /content\[1\]\.attachmentId/],
        [[{ type: 'attachment', attachmentId: photo.attachmentId, usageIntent: 'look' }], 400, /content(\.1|\[1\])/],
      ];
      const maskOf = async (width: number, height: number, grey = false) =>
        sharp({ create: { width, height, channels: 3, background: grey ? { r: 128, g: 128, b: 128 } : { r: 0, g: 0, b: 0 } } })
          .composite(grey ? [] : [{ input: { create: { width: Math.ceil(width / 2), height, channels: 3, background: { r: 255, g: 255, b: 255 } } }, left: 0, top: 0 }])
          .png()
          .toBuffer();
      const wrongSize = await uploaded(c, conversationId, 'm1.png', 'image/png', await maskOf(10, 10));
      const grey = await uploaded(c, conversationId, 'm2.png', 'image/png', await maskOf(20, 10, true));
      const good = await uploaded(c, conversationId, 'm3.png', 'image/png', await maskOf(20, 10));
      cases.push(
        [[{ type: 'attachment', attachmentId: photo.attachmentId }, { type: 'attachment', attachmentId: wrongSize.attachmentId, maskFor: { type: 'attachment', id: photo.attachmentId } }], 400, /content\[2\]/],
        [[{ type: 'attachment', attachmentId: photo.attachmentId }, { type: 'attachment', attachmentId: grey.attachmentId, maskFor: { type: 'attachment', id: photo.attachmentId } }], 400, /content\[2\]/],
        [[{ type: 'attachment', attachmentId: good.attachmentId, maskFor: { type: 'attachment', id: photo.attachmentId } }], 400, /content\[1\]\.maskFor/],
      );
      for (const [blocks, status, param] of cases) {
        const res = await send(blocks);
        assert.equal(res.status, status, JSON.stringify(res.body));
        assert.match(String(res.body.error?.param), param, JSON.stringify(res.body));
      }
      const messages = await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`);
      assert.equal((messages.body.data as unknown as { items: unknown[] }).items.length, 0, 'nothing was written');
      // The original and its mask together are accepted, and an edit of the original sends both.
      const edit = { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'the sky as a sunset', referenceArtifactIds: [photo.attachmentId] } }] };
      ctx.orchestrator.plan(conversationId, edit, { text: 'Edited.' });
      const withMask = [{ type: 'attachment', attachmentId: photo.attachmentId }, { type: 'attachment', attachmentId: good.attachmentId, maskFor: { type: 'attachment', id: photo.attachmentId } }];
      const ok = await send(withMask);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const run = await c.waitFor((ok.body.data as unknown as { runId: string }).runId, ['completed']);
      assert.ok(systemPromptOf(ctx.orchestrator.callsFor(conversationId)[0]).includes(`a mask for ${photo.attachmentId} (white = the region to edit`));
      const output = run.steps.find((s) => s.name === 'generate_image')?.output as { status: string; generationId: string } | undefined;
      assert.equal(output?.status, 'succeeded', JSON.stringify(output));
      const task = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('input_json').where('id', '=', String(output?.generationId)).executeTakeFirstOrThrow();
      assert.ok(task.input_json.includes(`${photo.attachmentId}-1.png`) && task.input_json.includes(`${good.attachmentId}-1.png`), task.input_json);

      // A pinned model that takes one reference image cannot do a masked edit: the run is told why and how to get another.
      const pinned = await c.conversation({ mode: 'manual', selectedModelId: 'grok-imagine-image' });
      const pinnedPhoto = await uploaded(c, pinned, 'p.png', 'image/png', await png(20, 10));
      const pinnedMask = await uploaded(c, pinned, 'pm.png', 'image/png', await maskOf(20, 10));
      ctx.orchestrator.plan(pinned, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'edit', referenceArtifactIds: [pinnedPhoto.attachmentId] } }] }, { text: 'Could not.' });
      const refusedRun = await c.call('POST', `/api/v1/agent/conversations/${pinned}/messages`, {
        content: [{ type: 'text', text: 'edit it' }, { type: 'attachment', attachmentId: pinnedPhoto.attachmentId }, { type: 'attachment', attachmentId: pinnedMask.attachmentId, maskFor: { type: 'attachment', id: pinnedPhoto.attachmentId } }],
      });
      const done = await c.waitFor((refusedRun.body.data as unknown as { runId: string }).runId, ['completed']);
      const result = done.steps.find((s) => s.name === 'generate_image')?.output as { status: string; error: string } | undefined;
      assert.equal(result?.status, 'refused');
      assert.match(String(result?.error), /grok-imagine-image takes at most 1 reference image.*propose_model_change/);
    });

    test('a text or PDF file is read once, when it is completed: runs read the kept text, not the file; an original completed before that is read once more and kept', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const { db } = ctx.gw.gateway.services.database;
      const { blobs } = ctx.gw.gateway.services;
      const pdf = await uploaded(c, conversationId, 'plan.pdf', 'application/pdf', flatePdf('Launch in May'));
      const notes = await uploaded(c, conversationId, 'notes.md', 'text/markdown', Buffer.from('# Notes\nBring the mugs.'));
      const rowOf = (id: string) => db.selectFrom('agent_attachments').select(['text_excerpt', 'blob_key']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal((await rowOf(pdf.attachmentId)).text_excerpt, 'Launch in May');
      assert.equal((await rowOf(notes.attachmentId)).text_excerpt, '# Notes\nBring the mugs.');
      // Without their files, runs still read them: the text was kept at completion.
      for (const id of [pdf.attachmentId, notes.attachmentId]) await blobs.delete((await rowOf(id)).blob_key);
      ctx.orchestrator.plan(conversationId, { text: 'Noted.' });
      const files = [pdf, notes].map((f) => ({ type: 'attachment', attachmentId: f.attachmentId, usageIntent: 'analyze' }));
      await c.waitFor((await c.send(conversationId, 'read these', { content: [{ type: 'text', text: 'read these' }, ...files] })).runId, ['completed']);
      const system = systemPromptOf(ctx.orchestrator.callsFor(conversationId).at(-1));
      assert.ok(system.includes('<<<\nLaunch in May\n>>>') && system.includes('<<<\n# Notes\nBring the mugs.\n>>>'), system);
      // An original completed before texts were kept: read once, at its first step, then kept.
      const older = await uploaded(c, conversationId, 'older.pdf', 'application/pdf', flatePdf('Old news'));
      await db.updateTable('agent_attachments').set({ text_excerpt: null }).where('id', '=', older.attachmentId).execute();
      ctx.orchestrator.plan(conversationId, { text: 'Read.' });
      await c.waitFor((await c.send(conversationId, 'and this', { content: [{ type: 'text', text: 'and this' }, { type: 'attachment', attachmentId: older.attachmentId }] })).runId, ['completed']);
      assert.ok(systemPromptOf(ctx.orchestrator.callsFor(conversationId).at(-1)).includes('<<<\nOld news\n>>>'));
      assert.equal((await rowOf(older.attachmentId)).text_excerpt, 'Old news');
    });

    test('masks past the limits are refused before a pixel is decoded, and a busy conversation before its masks are read', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const path = `/api/v1/agent/conversations/${conversationId}/messages`;
      const maskBlock = (id: string, original: string) => ({ type: 'attachment', attachmentId: id, maskFor: { type: 'attachment', id: original } });
      // 4097 pixels wide: larger than any picture a model edits. A 1-bit PNG keeps it small.
      const wide = await sharp({ create: { width: 4097, height: 8, channels: 3, background: '#000' } }).png({ palette: true, colours: 2 }).toBuffer();
      const original = await uploaded(c, conversationId, 'wide.png', 'image/png', wide);
      const mask = await uploaded(c, conversationId, 'wide-mask.png', 'image/png', wide);
      const tooWide = await c.call('POST', path, { content: [{ type: 'text', text: 'edit' }, { type: 'attachment', attachmentId: original.attachmentId }, maskBlock(mask.attachmentId, original.attachmentId)] });
      assert.equal(tooWide.status, 400, JSON.stringify(tooWide.body));
      assert.equal(tooWide.body.error?.code, 'invalid_attachment');
      assert.match(String(tooWide.body.error?.message), /at most 4096×4096/);
      // Five masks: refused with the body, before any file is looked at.
      const ids = Array.from({ length: 5 }, (_, i) => `att_${String(i).padStart(26, '0')}`);
      const five = await c.call('POST', path, { content: [{ type: 'text', text: 'edit' }, ...ids.map((id) => maskBlock(id, original.attachmentId))] });
      assert.equal(five.status, 400, JSON.stringify(five.body));
      assert.match(String(five.body.error?.message), /at most 4 masks/);
      // A conversation with an active run answers busy before reading the (bad) mask.
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'ask_clarification', arguments: { question: 'Which one?' } }] });
      const first = await c.send(conversationId, 'start');
      await c.waitFor(first.runId, ['waiting_for_clarification']);
      const busy = await c.call('POST', path, { content: [{ type: 'text', text: 'edit' }, { type: 'attachment', attachmentId: original.attachmentId }, maskBlock(mask.attachmentId, original.attachmentId)] });
      assert.equal(busy.status, 409, JSON.stringify(busy.body));
      assert.equal(busy.body.error?.code, 'conversation_busy');
    });

    // Last: it moves this gateway's agent clock forward.
    test('an upload not completed in 24 hours expires; a completed reference expires 3 days after completion, read or not', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const bytes = await png(16, 16);
      const pending = await announce(c, conversationId, 'late.png', 'image/png', bytes.length);
      const kept = await uploaded(c, conversationId, 'kept.png', 'image/png', bytes);
      const { clock, attachments } = ctx.gw.gateway.services.agent;
      clock.advance(24 * HOUR + 1000);
      if (ctx.mode === 'embedded') assert.equal((await put(pending, bytes)).status, 410);
      assert.equal((await complete(c, pending.attachmentId)).code, 'attachment_expired');
      assert.ok((await attachments.cleanup()) >= 1);
      assert.equal(((await c.call('GET', `/api/v1/agent/attachments/${pending.attachmentId}`)).body.data as unknown as AttachmentView).status, 'expired');
      // Reading the completed one does not extend it.
      assert.equal(((await c.call('GET', `/api/v1/agent/attachments/${kept.attachmentId}`)).body.data as unknown as AttachmentView).status, 'completed');
      clock.advance(48 * HOUR);
      await attachments.cleanup();
      const expired = (await c.call('GET', `/api/v1/agent/attachments/${kept.attachmentId}`)).body.data as unknown as AttachmentView;
      assert.equal(expired.status, 'expired');
      assert.equal(await attachments.cleanup(), 0, 'nothing left to remove');
    });
  },
  { protocols: ['openai'], config: () => ({ storefronts: { main: {}, shop2: { hosts: ['shop2.example.com'] } } }) },
);
