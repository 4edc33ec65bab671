/**
 * Lifecycle webhooks (SPEC Events 5): HTTPS destinations with event types and a scope, the secret
 * shown once, Standard Webhooks signatures verified with the reference library, the event id stable
 * across retries, 410 disabling the destination, and private destinations refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentWebhooksService } from '../../../src/services/agent/events/agent-webhooks.service.ts';
import { KyselyAgentLibraryStore } from '../../../src/adapters/db/stores/agent-library-store.ts';
import { kyselyUnitOfWork } from '../../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { agentClient } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import { createTestDatabase } from '../../support/databases.ts';
import { verifySigned, webhookReceiverForFile } from '../../support/webhook-receiver.ts';

const receiver = webhookReceiverForFile();

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describeAgent(
  'agent lifecycle webhooks',
  (ctx) => {
    test('signed deliveries of the subscribed types, the event id as webhook-id, the secret shown once', async () => {
      const c = await agentClient(ctx.gw);
      const path = `/hooks/${ctx.mode}/a`;
      const created = await c.call('POST', '/api/v1/agent/webhooks', { url: receiver.origin + path, eventTypes: ['run.completed', 'artifact.created'] });
      assert.equal(created.status, 200);
      const secret = created.body.data.secret as string;
      assert.match(secret, /^whsec_/);
      const listed = await c.call('GET', '/api/v1/agent/webhooks');
      assert.equal(JSON.stringify(listed.body).includes(secret), false);
      const conversationId = await c.conversation({ title: 'Hooks' });
      ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a hook' } }] }, { text: 'done' });
      await c.waitFor((await c.send(conversationId, 'an image')).runId, ['completed']);
      await until(() => receiver.at(path).length === 2, 10_000, 'two deliveries');
      const history = await c.events(conversationId);
      for (const delivery of receiver.at(path)) {
        const payload = verifySigned(secret, delivery) as { type: string; timestamp: string; data: { id: string; sequence: number } };
        const event = history.find((e) => e.id === delivery.headers['webhook-id']);
        assert.ok(event, 'webhook-id is the event id');
        assert.equal(payload.type, event.type);
        assert.equal(payload.data.sequence, event.sequence);
      }
      assert.deepEqual(receiver.at(path).map((d) => JSON.parse(d.body).type).sort(), ['artifact.created', 'run.completed']);
      // Another user's destination hears nothing of this conversation.
      assert.equal(receiver.received.filter((d) => d.path !== path && d.body.includes(conversationId)).length, 0);
    });

    test('a retry keeps the webhook-id; 410 Gone disables the destination; a conversation scope filters', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Scoped' });
      const otherConversation = await c.conversation({ title: 'Not scoped' });
      const retried = `/hooks/${ctx.mode}/retry`;
      const gone = `/hooks/${ctx.mode}/gone`;
      receiver.answer(retried, 503, 200);
      receiver.answer(gone, 410);
      await c.call('POST', '/api/v1/agent/webhooks', { url: receiver.origin + retried, eventTypes: ['run.completed'], scope: 'conversation', scopeId: conversationId });
      const goneHook = await c.call('POST', '/api/v1/agent/webhooks', { url: receiver.origin + gone, eventTypes: ['*'] });
      ctx.orchestrator.plan(conversationId, { text: 'first' });
      ctx.orchestrator.plan(otherConversation, { text: 'second' });
      await c.waitFor((await c.send(conversationId, 'one')).runId, ['completed']);
      await c.waitFor((await c.send(otherConversation, 'two')).runId, ['completed']);
      await until(() => receiver.at(retried).length === 2, 15_000, 'the retry (about 5 s later)');
      const [first, second] = receiver.at(retried);
      assert.equal(first?.headers['webhook-id'], second?.headers['webhook-id']);
      assert.notEqual(first?.headers['webhook-timestamp'] === second?.headers['webhook-timestamp'] && first?.headers['webhook-signature'] === second?.headers['webhook-signature'], true);
      assert.equal(JSON.parse(first?.body ?? '{}').data.conversationId, conversationId);
      await until(() => receiver.at(gone).length >= 1, 10_000, 'the delivery answered 410');
      await new Promise((r) => setTimeout(r, 300));
      const hooks = (await c.call('GET', '/api/v1/agent/webhooks')).body.data as unknown as Array<{ webhookId: string; status: string; disabledReason: string | null }>;
      const disabled = hooks.find((h) => h.webhookId === goneHook.body.data.webhookId);
      assert.equal(disabled?.status, 'disabled');
      assert.match(String(disabled?.disabledReason), /410/);
      const count = receiver.at(gone).length;
      ctx.orchestrator.plan(conversationId, { text: 'third' });
      await c.waitFor((await c.send(conversationId, 'three')).runId, ['completed']);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.at(gone).length, count, 'a disabled destination gets nothing more');
      const deleted = await c.call('DELETE', `/api/v1/agent/webhooks/${goneHook.body.data.webhookId}`);
      assert.equal(deleted.status, 200);
      assert.equal((await c.call('DELETE', `/api/v1/agent/webhooks/${goneHook.body.data.webhookId}`)).status, 404);
    });

    test('destinations are validated: event types, scopes, another user\'s conversation', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const theirs = await other.conversation({ title: 'theirs' });
      const bad = async (body: unknown, param: string) => {
        const res = await c.call('POST', '/api/v1/agent/webhooks', body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(String(res.body.error?.param), new RegExp(param));
      };
      await bad({ url: `${receiver.origin}/x`, eventTypes: ['message.delta'] }, 'eventTypes');
      await bad({ url: `${receiver.origin}/x`, eventTypes: [] }, 'eventTypes');
      await bad({ url: 'ftp://example.com/x', eventTypes: ['*'] }, 'url');
      await bad({ url: `${receiver.origin}/x`, eventTypes: ['*'], scope: 'conversation' }, 'scopeId');
      await bad({ url: `${receiver.origin}/x`, eventTypes: ['*'], scope: 'conversation', scopeId: theirs }, 'scopeId');
    });
  },
  { protocols: ['openai'] },
);

test('without SWITCHBOARD_ALLOW_PRIVATE_URLS, plain http and private or local destinations are refused', async () => {
  const created = await createTestDatabase('sqlite');
  try {
    const service = new AgentWebhooksService({ store: new KyselyAgentLibraryStore(), uow: kyselyUnitOfWork(created.db.handle.db), allowPrivateUrls: false });
    const caller = { userId: 'usr_x', keyId: null, storefront: { id: 'default', name: 'd', hosts: [], agentRuns: true } };
    for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://[::1]/hook', 'https://localhost/hook', 'https://169.254.169.254/latest']) {
      await assert.rejects(service.create(caller, { url, eventTypes: ['*'] }), (error: { code?: string; param?: string }) => error.code === 'invalid_input' && error.param === 'url', url);
    }
  } finally {
    await created.dispose();
  }
});
