/**
 * GET /api/v1/billing/ledger names the model of a chat request's entry, so the Billing page can show
 * it beside the charge instead of the bare request id.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { latestRow, openAiClient, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

interface Entry {
  kind: string;
  link: { type: string; id: string | null; model?: string | null; agentConversationId?: string | null };
}

describeEachMode(
  'billing ledger names',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a chat charge links to its request and names the model it asked for', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'ok' });
      await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      const row = await latestRow(ctx.gw, userId);
      const ledger = await ctx.gw.api(key, 'GET', '/api/v1/billing/ledger?kind=chat_charge');
      assert.equal(ledger.status, 200);
      const items = (ledger.body as { data: { items: Entry[] } }).data.items;
      assert.equal(items.length, 1);
      assert.deepEqual(items[0]?.link, { type: 'chat_request', id: row.id, agentConversationId: null, model: 'gpt-5.4-mini' });
    });
  },
  { configFile: fakes.config },
);
