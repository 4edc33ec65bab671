/**
 * Issue 30, item 5: an operator-added text model bills cache writes and web searches at the prices
 * its configuration gives (USD per 1M tokens by lifetime; USD per 1,000 searches), exactly; a model
 * without them refuses cache marks (and web search tools) with a 400 naming the field, before any
 * hold or upstream call. Built-in models take the same fields as overrides.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { anthropicClient, assertSettled, balanceMicro, expectedCost, heldMicro, prices, startChatFakes, upstreamBody } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const base = fakes.config as { routes: Record<string, unknown> };
const config = {
  ...fakes.config,
  chatModels: [
    {
      id: 'claude-opus-5', vendor: 'Anthropic', protocols: ['anthropic', 'openai'],
      inputPrice: '5.00', outputPrice: '25.00', cachedInputPrice: '0.50', cacheWritePrice: '6.25', cacheWrite1hPrice: '10.00', webSearchPrice: '10.00',
    },
    { id: 'plain-added', protocols: ['anthropic'], inputPrice: '1.00', outputPrice: '2.00' },
    { id: 'five-minutes-only', protocols: ['anthropic'], inputPrice: '1.00', outputPrice: '2.00', cacheWritePrice: '1.25' },
  ],
  models: { 'claude-sonnet-4-6': { cacheWritePrice: '4.00', cacheWrite1hPrice: '7.00' } },
  routes: {
    ...base.routes,
    'claude-opus-5': [{ provider: 'an', model: 'claude-opus-5' }],
    'plain-added': [{ provider: 'an', model: 'plain-upstream' }],
    'five-minutes-only': [{ provider: 'an', model: 'five-upstream' }],
  },
};

const system = (ttl?: '1h'): Anthropic.TextBlockParam[] => [
  { type: 'text', text: 'Long instructions.', cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } },
];

describeEachMode(
  'added text models: cache-write and web-search prices',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('cache writes by lifetime and web searches are billed at the configured prices, exactly', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const p = await prices(ctx.gw, key, 'claude-opus-5');
      assert.deepEqual([p.input, p.cached, p.cacheWrite, p.cacheWrite1h, p.webSearchPer1k], [5_000_000n, 500_000n, 6_250_000n, 10_000_000n, 10_000_000n], 'published as configured');
      fakes.anthropic.enqueue({ text: 'Cached.', usage: { input: 31, output: 7, cached: 100, cacheCreation: 700, cacheCreation1h: 500, webSearches: 2 } });
      const message = await anthropicClient(ctx.gw, key).messages.create({
        model: 'claude-opus-5', max_tokens: 64, system: [...system('1h'), { type: 'text', text: 'More.', cache_control: { type: 'ephemeral' } }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }], messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(upstreamBody<{ model: string }>(fakes.anthropic, 0).model, 'claude-opus-5');
      // 31 plain + 100 reads + 200 five-minute writes + 500 one-hour writes, 7 out, 2 searches.
      const cost = expectedCost(p, { input: 831, output: 7, cached: 100, writes: 700, writes1h: 500, searches: 2 });
      assert.equal(cost, Math.ceil(31 * 5 + 100 * 0.5 + 200 * 6.25 + 500 * 10 + 7 * 25 + 2 * 10_000));
      await assertSettled(ctx.gw, userId, message.id, cost);
    });

    test('a built-in model takes cache-write prices as overrides', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      assert.deepEqual([p.cacheWrite, p.cacheWrite1h], [4_000_000n, 7_000_000n]);
      fakes.anthropic.enqueue({ text: 'Cached.', usage: { input: 20, output: 9, cacheCreation: 700, cacheCreation1h: 500 } });
      const message = await anthropicClient(ctx.gw, key).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, system: system('1h'), messages: [{ role: 'user', content: 'Hi' }] });
      await assertSettled(ctx.gw, userId, message.id, Math.ceil(20 * 3 + 200 * 4 + 500 * 7 + 9 * 15));
    });

    test('a model without cache-write prices refuses cache marks (and one without a 1 h price one-hour marks) before the hold', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      const refused = async (call: Promise<unknown>): Promise<string> => {
        const error = await call.then(() => assert.fail('accepted'), (e: unknown) => e);
        assert.ok(error instanceof Anthropic.APIError && error.status === 400, String(error));
        return (error.error as { error: { message: string } }).error.message;
      };
      assert.match(await refused(client.messages.create({ model: 'plain-added', max_tokens: 16, system: system(), messages: [{ role: 'user', content: 'Hi' }] })), /^cache_control: cache writes are not offered for plain-added/);
      assert.match(await refused(client.messages.create({ model: 'five-minutes-only', max_tokens: 16, system: system('1h'), messages: [{ role: 'user', content: 'Hi' }] })), /^cache_control: one-hour cache writes are not offered/);
      assert.match(
        await refused(client.messages.create({ model: 'plain-added', max_tokens: 16, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }], messages: [{ role: 'user', content: 'Hi' }] })),
        /web search is not offered/,
      );
      assert.equal(fakes.anthropic.requests.length, 0, 'no upstream call');
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
      assert.equal(await heldMicro(ctx.gw, userId), 0);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);

      // Without marks it answers, and a five-minute mark is billed at its price.
      fakes.anthropic.enqueue({ text: 'Hi.', usage: { input: 10, output: 2 } }, { text: 'Hi.', usage: { input: 10, output: 2, cacheCreation: 100 } });
      const plain = await client.messages.create({ model: 'plain-added', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
      await assertSettled(ctx.gw, userId, plain.id, 10 * 1 + 2 * 2);
      const five = await client.messages.create({ model: 'five-minutes-only', max_tokens: 16, system: system(), messages: [{ role: 'user', content: 'Hi' }] });
      await assertSettled(ctx.gw, userId, five.id, 10 * 1 + 100 * 1.25 + 2 * 2);
    });
  },
  { configFile: config },
);
