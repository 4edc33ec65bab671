/**
 * Prices changed live (issue 32, item 5) on a whole gateway: the running catalog adopts a new one and
 * the public lists show it at once; a request started before the change is charged at the prices it
 * was held or estimated at (a chat hold settles at the old token prices, a media task keeps its
 * debit), and one started after it at the new prices.
 */
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { Catalog } from '../../src/domain/catalog/catalog.ts';
import type { ChatRequest } from '../../src/domain/chat/chat-request.types.ts';
import { assertSettled, expectedCost, heldMicro, openAiClient, prices, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function taskLedger(gw: TestGateway, taskId: string): Promise<Array<[string, number]>> {
  const rows = await gw.gateway.services.database.db.selectFrom('ledger_entries').select(['kind', 'amount_micro']).where('reference', '=', taskId).orderBy('id').execute();
  return rows.map((r) => [r.kind, Number(r.amount_micro)]);
}

describeEachMode(
  'catalog prices changed live',
  (ctx) => {
    beforeEach(() => fakes.reset());
    // Each test starts from the catalog the gateway was started with.
    afterEach(() => ctx.gw.gateway.services.catalog.adopt(Catalog.build()));

    test('a chat request held before the change settles at the old prices; /models shows the new ones at once; the next request pays them', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const usage = { input: 1000, output: 500 };
      const old = await prices(ctx.gw, key, 'gpt-5.4-mini');
      // The upstream answers late, so the change lands between the hold and the settlement.
      fakes.openai.enqueue({ text: 'before', usage, delayMs: 400 });
      const client = openAiClient(ctx.gw, key);
      const first = client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await until('the hold was taken', async () => (await heldMicro(ctx.gw, userId)) > 0);

      ctx.gw.gateway.services.catalog.adopt(Catalog.build({ models: { 'gpt-5.4-mini': { inputPrice: '7.5', outputPrice: '45' } }, addedChatModels: [], addedMediaModels: [] }));
      const now = await prices(ctx.gw, key, 'gpt-5.4-mini');
      assert.equal(now.input, 7_500_000n);
      assert.equal(now.output, 45_000_000n);
      const cost = ((await ctx.gw.api(undefined, 'GET', '/api/v1/cost/gpt-5.4-mini')).body as { tokens: { input: string } }).tokens;
      assert.equal(cost.input, '7.5');

      const answer = await first;
      await assertSettled(ctx.gw, userId, answer.id, expectedCost(old, usage));

      fakes.openai.enqueue({ text: 'after', usage });
      const second = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await assertSettled(ctx.gw, userId, second.id, expectedCost(now, usage));
      assert.ok(expectedCost(now, usage) > expectedCost(old, usage));
    });

    test('a call quoted before the change (the model step of an agent run) is held and charged at the quoted prices', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const usage = { input: 1000, output: 500 };
      const old = await prices(ctx.gw, key, 'gpt-5.4-mini');
      const chat = ctx.gw.gateway.services.chat;
      const request: ChatRequest = { model: 'gpt-5.4-mini', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [], maxOutputTokens: 600, stop: [], stream: false };
      const quote = chat.quote({ protocol: 'openai', request });
      ctx.gw.gateway.services.catalog.adopt(Catalog.build({ models: { 'gpt-5.4-mini': { inputPrice: '7.5', outputPrice: '45' } }, addedChatModels: [], addedMediaModels: [] }));
      fakes.openai.enqueue({ text: 'quoted', usage });
      const answer = await chat.complete({ userId, apiKeyId: undefined, protocol: 'openai', request, abort: new AbortController(), onAbort: 'cancel', model: quote.model, maxChargeMicro: quote.holdMicro });
      assert.equal(answer.kind, 'response');
      await answer.ended;
      const row = await assertSettled(ctx.gw, userId, answer.id, expectedCost(old, usage));
      assert.equal(row.hold_micro, quote.holdMicro, 'held what the quote said');
    });

    test('a media task created before the change keeps its debit (= its estimate); one created after it costs the new price', async () => {
      const { key } = await ctx.gw.createUser(100);
      const body = { model: 'z-image-turbo', input: { prompt: 'a lighthouse' } };
      const estimate = ((await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', body)).body as { cost: number }).cost;
      assert.equal(estimate, 10_000);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', body);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const before = (created.body as { data: { taskId: string } }).data.taskId;

      // The task is still running (the local provider's latency) when the price changes.
      ctx.gw.gateway.services.catalog.adopt(Catalog.build({ models: { 'z-image-turbo': { pricing: [{ key: 'default', price: '0.05' }] } }, addedChatModels: [], addedMediaModels: [] }));
      const published = (await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/z-image-turbo')).body as { priceFrom: string };
      assert.equal(published.priceFrom, '0.05');
      const listed = ((await ctx.gw.api(undefined, 'GET', '/api/v1/catalog')).body as Array<{ id: string; priceFrom: string }>).find((m) => m.id === 'z-image-turbo');
      assert.equal(listed?.priceFrom, '0.05');

      assert.equal((await waitForTask(ctx.gw, key, before)).status, 'finished');
      assert.deepEqual(await taskLedger(ctx.gw, before), [['generation_debit', -estimate]]);
      const detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${before}`)).body as { data: { cost: { microUsd: string } } };
      assert.equal(detail.data.cost.microUsd, String(estimate));

      const later = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', body);
      const afterId = (later.body as { data: { taskId: string } }).data.taskId;
      assert.equal((await waitForTask(ctx.gw, key, afterId)).status, 'finished');
      assert.deepEqual(await taskLedger(ctx.gw, afterId), [['generation_debit', -50_000]]);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a model hidden live disappears from the lists at once and is refused to new requests', async () => {
      const { key } = await ctx.gw.createUser(100);
      ctx.gw.gateway.services.catalog.adopt(Catalog.build({ models: { 'gpt-5.4-mini': { hidden: true }, 'z-image-turbo': { hidden: true } }, addedChatModels: [], addedMediaModels: [] }));
      const models = (await ctx.gw.api(key, 'GET', '/api/v1/models')).body as { data: Array<{ id: string }> };
      assert.ok(!models.data.some((m) => m.id === 'gpt-5.4-mini'));
      assert.equal((await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/z-image-turbo')).status, 404);
      const refused = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' } });
      assert.equal(refused.status, 400);
    });
  },
  { configFile: fakes.config, env: { SWITCHBOARD_LOCAL_LATENCY_MS: '300' } },
);
