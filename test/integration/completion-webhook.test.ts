import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';
import { type ReceivedWebhook, verifySigned, webhookReceiverForFile } from '../support/webhook-receiver.ts';

const receiver = webhookReceiverForFile();
receiver.answer('/hook', 204);
/** Read once the receiver has started (it listens on a port of its own choosing). */
const receiverUrl = () => `${receiver.origin}/hook`;

async function deliveriesFor(taskId: string, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mine = receiver.at('/hook').filter((r) => r.body.includes(taskId));
    if (mine.length > 0 || Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachMode(
  'completion webhooks of media tasks',
  (ctx) => {
    test('a finished task calls the webhook with the status body, signed per Standard Webhooks', async () => {
      const { key } = await ctx.gw.createUser(100);
      const secret = ((await ctx.gw.api(key, 'GET', '/api/v1/webhooks/secret')).body as { data: { secret: string } }).data.secret;
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'hooked' }, webhook: receiverUrl() });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      await waitForTask(ctx.gw, key, taskId);
      const [delivery] = await deliveriesFor(taskId);
      assert.ok(delivery, 'the webhook was called');
      const payload = verifySigned(secret, delivery) as { code: number; data: { taskId: string; status: string } };
      assert.equal(payload.data.status, 'finished');
      const status = (await ctx.gw.api(key, 'GET', `/api/v1/task/status/${taskId}`)).body;
      assert.deepEqual(JSON.parse(delivery.body), status, 'the webhook and the status endpoint agree');
      // The delivery is marked delivered just after the receiver answered: wait for that write.
      type Detail = { data: { webhook: { url: string; deliveries: Array<{ status: string }> } } };
      let detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as Detail;
      for (let i = 0; i < 100 && detail.data.webhook.deliveries[0]?.status !== 'delivered'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as Detail;
      }
      assert.equal(detail.data.webhook.url, receiverUrl());
      assert.equal(detail.data.webhook.deliveries[0]?.status, 'delivered');
    });

    test('a failed task calls the webhook too, with its error message', async () => {
      const { key } = await ctx.gw.createUser(100);
      const secret = ((await ctx.gw.api(key, 'GET', '/api/v1/webhooks/secret')).body as { data: { secret: string } }).data.secret;
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'grok-imagine-image', input: { prompt: 'doomed' }, webhook: receiverUrl() });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      await waitForTask(ctx.gw, key, taskId);
      const [delivery] = await deliveriesFor(taskId);
      assert.ok(delivery);
      const payload = verifySigned(secret, delivery) as { data: { status: string; errorMessage: string } };
      assert.equal(payload.data.status, 'failed');
      assert.match(payload.data.errorMessage, /injected failure/);
    });
  },
  { configFile: { providers: { broken: { type: 'local', options: { failureRate: 1 } } }, routes: { 'grok-imagine-image': ['broken'] } } },
);
