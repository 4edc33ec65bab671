/**
 * Playground uploads (issue 21, item 16): a file for a media field goes through the agent's
 * attachment machinery without a conversation; the completed original's gateway file URL is accepted
 * by the generation create path and reaches the model; another user cannot complete it, and the
 * agent's attachment routes and messages never see it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { agentClient } from '../support/agent.ts';
import { describeAgent } from '../support/agent-suite.ts';

interface Slot {
  attachmentId: string;
  uploadUrl: string;
  uploadHeaders: Record<string, string>;
}

describeAgent(
  'playground uploads',
  (ctx) => {
    test('announce, PUT, complete: the answer carries a gateway file URL that a generation takes and the model receives', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const bytes = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 10, g: 200, b: 90 } } }).png().toBuffer();
      const announced = await c.call('POST', '/api/v1/playground/uploads', { name: 'frame.png', mime: 'image/png', sizeBytes: bytes.length });
      assert.equal(announced.status, 200, JSON.stringify(announced.body));
      const slot = announced.body.data as unknown as Slot;
      assert.match(slot.attachmentId, /^att_/);
      const sent = await fetch(slot.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'image/png' } });
      assert.equal(sent.status, 200, await sent.text());

      assert.equal((await other.call('POST', `/api/v1/playground/uploads/${slot.attachmentId}/complete`)).status, 404, 'only its owner completes it');
      const done = await c.call('POST', `/api/v1/playground/uploads/${slot.attachmentId}/complete`);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      const view = done.body.data as unknown as { url: string; status: string; facts: unknown };
      assert.equal(view.status, 'completed');
      assert.deepEqual(view.facts, { kind: 'image', format: 'png', width: 96, height: 64 });
      const again = await c.call('POST', `/api/v1/playground/uploads/${slot.attachmentId}/complete`);
      assert.deepEqual(again.body.data, done.body.data, 'completing again changes nothing');
      const served = await fetch(view.url);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

      // Not an attachment of the agent: its routes answer 404 and a message cannot name it.
      assert.equal((await c.call('GET', `/api/v1/agent/attachments/${slot.attachmentId}`)).status, 404);
      const conversationId = await c.conversation();
      const message = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'edit this' }, { type: 'attachment', attachmentId: slot.attachmentId }] });
      assert.equal(message.status, 400, JSON.stringify(message.body));

      const created = await c.call('POST', '/api/v1/generation/create', { model: 'nano-banana-2', input: { prompt: 'the same frame at night', urls: [view.url] } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = (created.body.data as unknown as { taskId: string }).taskId;
      let detail: { status: string; input: Record<string, unknown> } | undefined;
      for (let i = 0; i < 300 && !['finished', 'failed', 'expired'].includes(String(detail?.status)); i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        detail = (await c.call('GET', `/api/v1/generation/${taskId}`)).body.data as unknown as { status: string; input: Record<string, unknown> };
      }
      assert.equal(detail?.status, 'finished', JSON.stringify(detail));
      assert.deepEqual(detail?.input.urls, [view.url], 'the model received the gateway file URL');
    });
  },
  { protocols: ['openai'] },
);
