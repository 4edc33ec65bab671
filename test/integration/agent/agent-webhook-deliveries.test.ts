/**
 * Agent webhook test events, recent deliveries and redelivery (issue 21 item 17): a test event is
 * signed and verifiable with the reference library, a failing receiver's attempts show in words
 * without addresses, a redelivery keeps the event id, pages are newest first, and refusals are
 * 404 (another user's), 409 (revoked, disabled) and 429 (too many test events and redeliveries, which share one allowance).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type AgentClient, agentClient } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import { verifySigned, webhookReceiverForFile } from '../../support/webhook-receiver.ts';

interface DeliveryView {
  deliveryId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

interface Queued {
  deliveryId: string;
  eventId: string;
  queued: boolean;
}

const receiver = webhookReceiverForFile();

const TESTS_PER_WINDOW = 6;

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last seen ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createHook(c: AgentClient, url: string): Promise<{ webhookId: string; secret: string }> {
  const created = await c.call('POST', '/api/v1/agent/webhooks', { url, eventTypes: ['run.completed'] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const data = created.body.data as unknown as { webhookId: string; secret: string };
  return data;
}

async function sendTest(c: AgentClient, webhookId: string): Promise<Queued> {
  const res = await c.call('POST', `/api/v1/agent/webhooks/${webhookId}/test`);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data as unknown as Queued;
}

async function deliveries(c: AgentClient, webhookId: string, query = ''): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
  const res = await c.call('GET', `/api/v1/agent/webhooks/${webhookId}/deliveries${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as unknown as { items: DeliveryView[]; nextCursor: string | null };
}

async function redeliver(c: AgentClient, webhookId: string, deliveryId: string): Promise<Queued> {
  const res = await c.call('POST', `/api/v1/agent/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data as unknown as Queued;
}

describeAgent(
  'agent webhook test events and deliveries',
  (ctx) => {
    test('a test event arrives signed and verifiable, and its delivery is listed as delivered', async () => {
      const c = await agentClient(ctx.gw);
      const path = `/deliveries/${ctx.mode}/ok`;
      const hook = await createHook(c, receiver.origin + path);
      const queued = await sendTest(c, hook.webhookId);
      assert.equal(queued.queued, true);
      const listed = await until(() => deliveries(c, hook.webhookId), (page) => page.items[0]?.status === 'delivered', 'the test delivery');
      assert.equal(receiver.at(path).length, 1);
      const [arrived] = receiver.at(path);
      const payload = verifySigned(hook.secret, arrived) as { type: string; data: { id: string; webhookId: string } };
      assert.equal(payload.type, 'webhook.test');
      assert.equal(payload.data.webhookId, hook.webhookId);
      assert.equal(arrived?.headers['webhook-id'], queued.eventId);
      assert.equal(payload.data.id, queued.eventId);
      const item = listed.items[0];
      assert.deepEqual(
        { deliveryId: item?.deliveryId, eventId: item?.eventId, eventType: item?.eventType, attempts: item?.attempts, lastStatusCode: item?.lastStatusCode, lastError: item?.lastError },
        { deliveryId: queued.deliveryId, eventId: queued.eventId, eventType: 'webhook.test', attempts: 1, lastStatusCode: 200, lastError: null },
      );
      assert.ok(item?.deliveredAt && item.lastAttemptAt);
      assert.equal(listed.nextCursor, null);
    });

    test('a failing receiver shows its failed attempt; redelivery brings the pending one forward, then sends the same event id again', async () => {
      const c = await agentClient(ctx.gw);
      const path = `/deliveries/${ctx.mode}/failing`;
      receiver.answer(path, 500);
      const hook = await createHook(c, receiver.origin + path);
      const queued = await sendTest(c, hook.webhookId);
      const failing = await until(() => deliveries(c, hook.webhookId), (page) => page.items[0]?.attempts === 1 && page.items[0].lastStatusCode === 500, 'the failed attempt');
      assert.equal(failing.items[0]?.status, 'pending', 'a 500 is retried');
      assert.equal(failing.items[0]?.lastError, 'the receiver answered HTTP 500');
      assert.ok(failing.items[0]?.nextAttemptAt, 'the next attempt is scheduled');

      // The receiver is fixed; asking for a redelivery while the retry waits adds nothing and sends it now.
      receiver.answer(path, 200);
      const again = await redeliver(c, hook.webhookId, queued.deliveryId);
      assert.deepEqual(again, { deliveryId: queued.deliveryId, eventId: queued.eventId, queued: false });
      await until(() => deliveries(c, hook.webhookId), (page) => page.items[0]?.status === 'delivered', 'the retry brought forward', 4_000);
      assert.deepEqual(receiver.at(path).map((r) => r.headers['webhook-id']), [queued.eventId, queued.eventId]);

      // A delivered event sent again: a new delivery, the same event id and body, signed afresh.
      const resent = await redeliver(c, hook.webhookId, queued.deliveryId);
      assert.equal(resent.queued, true);
      assert.notEqual(resent.deliveryId, queued.deliveryId);
      assert.equal(resent.eventId, queued.eventId);
      const both = await until(() => deliveries(c, hook.webhookId), (page) => page.items.length === 2 && page.items.every((d) => d.status === 'delivered'), 'the redelivery');
      assert.deepEqual(both.items.map((d) => d.deliveryId), [resent.deliveryId, queued.deliveryId], 'newest first');
      const bodies = receiver.at(path).map((r) => r.body);
      assert.equal(bodies[2], bodies[0]);
      verifySigned(hook.secret, receiver.at(path)[2]);
    });

    test('an unreachable receiver is described in words without its address', async () => {
      const c = await agentClient(ctx.gw);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const hook = await createHook(c, `http://127.0.0.1:${port}/nobody`);
      await sendTest(c, hook.webhookId);
      const page = await until(() => deliveries(c, hook.webhookId), (p) => p.items[0]?.attempts === 1 && p.items[0].lastError !== null && !p.items[0].lastError.startsWith('no result'), 'the refused attempt');
      const error = page.items[0]?.lastError ?? '';
      assert.match(error, /refused the connection/);
      assert.equal(error.includes('127.0.0.1'), false, error);
      assert.equal(page.items[0]?.lastStatusCode, null);
    });

    test('410 Gone fails the delivery and disables the destination: test and redeliver are 409', async () => {
      const c = await agentClient(ctx.gw);
      const path = `/deliveries/${ctx.mode}/gone`;
      receiver.answer(path, 410);
      const hook = await createHook(c, receiver.origin + path);
      const queued = await sendTest(c, hook.webhookId);
      const page = await until(() => deliveries(c, hook.webhookId), (p) => p.items[0]?.status === 'failed', 'the failed delivery');
      assert.match(page.items[0]?.lastError ?? '', /HTTP 410/);
      await until(
        async () => ((await c.call('GET', '/api/v1/agent/webhooks')).body.data as unknown as Array<{ webhookId: string; status: string }>).find((h) => h.webhookId === hook.webhookId)?.status,
        (status) => status === 'disabled',
        'the destination disabled',
      );
      const tested = await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/test`);
      assert.equal(tested.status, 409);
      assert.equal(tested.body.error?.code, 'webhook_disabled');
      const res = await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries/${queued.deliveryId}/redeliver`);
      assert.equal(res.status, 409);
      assert.equal(res.body.error?.code, 'webhook_disabled');
      // The history stays readable.
      assert.equal((await deliveries(c, hook.webhookId)).items.length, 1);
    });

    test('deliveries are paged newest first; limits and cursors are checked', async () => {
      const c = await agentClient(ctx.gw);
      const hook = await createHook(c, `${receiver.origin}/deliveries/${ctx.mode}/paged`);
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) sent.push((await sendTest(c, hook.webhookId)).deliveryId);
      const seen: DeliveryView[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { items: DeliveryView[]; nextCursor: string | null } = await deliveries(c, hook.webhookId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(page.items.length <= 2);
        seen.push(...page.items);
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual(seen.map((d) => d.deliveryId), [...sent].reverse());
      for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=bm90LW9uZQ']) {
        const res = await c.call('GET', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries${query}`);
        assert.equal(res.status, 400, query);
      }
    });

    test('redeliveries count towards the test-event allowance: past it, 429 with Retry-After and no further POST', async () => {
      const c = await agentClient(ctx.gw);
      const path = `/deliveries/${ctx.mode}/redelivered`;
      const hook = await createHook(c, receiver.origin + path);
      const queued = await sendTest(c, hook.webhookId);
      await until(() => deliveries(c, hook.webhookId), (page) => page.items[0]?.status === 'delivered', 'the test delivery');
      // One test event and TESTS_PER_WINDOW - 1 redeliveries use the window up, whatever each queued.
      for (let i = 1; i < TESTS_PER_WINDOW; i++) {
        await redeliver(c, hook.webhookId, queued.deliveryId);
        await until(() => deliveries(c, hook.webhookId), (page) => page.items.every((d) => d.status === 'delivered'), 'the redelivery');
      }
      const limited = await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries/${queued.deliveryId}/redeliver`);
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.error?.code, 'rate_limited');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      // The allowance is shared: a test event is refused too.
      assert.equal((await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/test`)).status, 429);
      const listed = await deliveries(c, hook.webhookId);
      assert.equal(listed.items.length, TESTS_PER_WINDOW, 'the refused redelivery queued nothing');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.at(path).length, TESTS_PER_WINDOW, 'one POST per allowed send');
    });

    test('another user\'s destination is 404; a revoked one is 409; test events are rate-limited with Retry-After', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const hook = await createHook(c, `${receiver.origin}/deliveries/${ctx.mode}/limits`);
      const first = await sendTest(c, hook.webhookId);
      const paths = [
        ['POST', `/api/v1/agent/webhooks/${hook.webhookId}/test`],
        ['GET', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries`],
        ['POST', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries/${first.deliveryId}/redeliver`],
      ] as const;
      for (const [method, path] of paths) {
        const res = await other.call(method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.error?.code, 'not_found');
      }
      assert.equal((await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/deliveries/whd_00000000000000000000000000/redeliver`)).status, 404);
      assert.equal((await c.call('GET', '/api/v1/agent/webhooks/awh_nope/deliveries')).status, 404);

      for (let i = 1; i < TESTS_PER_WINDOW; i++) await sendTest(c, hook.webhookId);
      const limited = await c.call('POST', `/api/v1/agent/webhooks/${hook.webhookId}/test`);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error?.code, 'rate_limited');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      // Another user has a window of their own.
      const theirs = await createHook(other, `${receiver.origin}/deliveries/${ctx.mode}/theirs`);
      await sendTest(other, theirs.webhookId);

      assert.equal((await c.call('DELETE', `/api/v1/agent/webhooks/${hook.webhookId}`)).status, 200);
      for (const path of [`/api/v1/agent/webhooks/${hook.webhookId}/test`, `/api/v1/agent/webhooks/${hook.webhookId}/deliveries/${first.deliveryId}/redeliver`]) {
        const res = await c.call('POST', path);
        assert.equal(res.status, 409, path);
        assert.equal(res.body.error?.code, 'webhook_revoked');
      }
    });
  },
  { protocols: ['openai'], config: () => ({ limits: { webhookTestsPerUser: { max: TESTS_PER_WINDOW, windowSeconds: 600 } } }) },
);
